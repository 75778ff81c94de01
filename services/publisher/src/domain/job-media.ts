import { isAppError, type ErrorDetail } from '@svc/errors';
import { verifyUrl } from '@svc/media';
import type { MediaRow } from '../data/media.repository.ts';
import type { JobMedium, JobMediaSource } from './check-job.ts';
import { publicUrlOf } from './media-view.ts';
import { resolveJobMedia, takeSlots, type ResolveMediaDeps } from './resolve-media.ts';

const mediumOf = (row: MediaRow, publicBase: string): JobMedium => ({
  url: publicUrlOf(publicBase, row.id),
  kind: row.kind as JobMedium['kind'],
  durationMs: row.durationMs,
  width: row.width,
  height: row.height,
  pageCount: row.pageCount,
  mediaId: row.id,
  compatibility: row.compatibility as JobMedium['compatibility'],
});

/** The organization's records of `media_ids`, in order; unknown or foreign ids are problems naming them. */
async function libraryMedia(deps: ResolveMediaDeps, orgId: string, mediaIds: readonly string[], publicBase: string) {
  const found = new Map((await deps.media.findMany(orgId, mediaIds)).map((row) => [row.id, row]));
  const problems: ErrorDetail[] = [];
  const media: JobMedium[] = [];
  mediaIds.forEach((id, index) => {
    const row = found.get(id);
    if (row !== undefined) media.push(mediumOf(row, publicBase));
    else
      problems.push({
        path: `/body/media_ids/${index}`,
        message: `media ${id} does not exist in this organization`,
        rule: 'unknown_media',
        media_id: id,
      });
  });
  return { media, problems };
}

/**
 * Create's media: the library records of `media_ids`, and `media_urls` imported into the library,
 * but only once nothing else is wrong with the post (a refused post stores no file). The imported
 * rows are handed to `onRows` for the job's record.
 */
export function importingMedia(
  deps: ResolveMediaDeps,
  publicBase: string,
  onRows: (rows: MediaRow[]) => void,
): JobMediaSource {
  return async (request, usable) => {
    if (!usable.rest || !usable.urls) {
      const library = await libraryMedia(deps, request.orgId, request.mediaIds, publicBase);
      return { ...library, incomplete: request.mediaUrls.length > 0 };
    }
    try {
      const rows = await resolveJobMedia(deps, request.orgId, request.mediaIds, request.mediaUrls);
      onRows(rows);
      return { media: rows.map((row) => mediumOf(row, publicBase)), problems: [], incomplete: false };
    } catch (error) {
      // A URL or id that will not do is a problem of the post; anything else (429, 5xx) is the call's answer.
      if (!isAppError(error) || error.code !== 'validation_error' || error.details === undefined) throw error;
      return { media: [], problems: error.details, incomplete: true };
    }
  };
}

/**
 * Validate's media: the library records of `media_ids`, and for each distinct `media_urls` what
 * `POST /v1/media/verify` reads (headers and a bounded head: type, size, dimensions when the head
 * holds them, and the per-network verdicts from those), nothing stored. Runs in the process's ingest
 * slots, at most `perJob` at once, within the import deadline.
 */
export function probingMedia(deps: ResolveMediaDeps & { verifyHeadBytes: number }, publicBase: string): JobMediaSource {
  return async (request, usable) => {
    const library = await libraryMedia(deps, request.orgId, request.mediaIds, publicBase);
    const distinct = [...new Set(request.mediaUrls)];
    if (!usable.urls || distinct.length === 0)
      return { ...library, incomplete: request.mediaUrls.length > 0 && !usable.urls };
    const verified = await verifyAll(deps, request.orgId, distinct);
    const problems = [...library.problems];
    const byUrl = new Map<string, JobMedium>();
    distinct.forEach((url, position) => {
      const outcome = verified[position]!;
      if (outcome.ok) {
        byUrl.set(url, {
          // Imported at create, it is served from the library: that is the address networks pull.
          url: publicUrlOf(publicBase, 'pending'),
          kind: outcome.verification.facts.kind,
          durationMs: outcome.verification.facts.durationMs,
          width: outcome.verification.facts.width,
          height: outcome.verification.facts.height,
          pageCount: outcome.verification.facts.pageCount,
          mediaId: null,
          compatibility: outcome.verification.compatibility,
        });
        return;
      }
      request.mediaUrls.forEach((candidate, index) => {
        if (candidate === url) problems.push({ ...outcome.problem, path: `/body/media_urls/${index}`, url });
      });
    });
    const fromUrls = request.mediaUrls.flatMap((url) => {
      const medium = byUrl.get(url);
      return medium === undefined ? [] : [medium];
    });
    return {
      media: [...library.media, ...fromUrls],
      problems,
      incomplete: fromUrls.length < request.mediaUrls.length,
    };
  };
}

type Verified =
  | { ok: true; verification: Awaited<ReturnType<typeof verifyUrl>> }
  | { ok: false; problem: { message: string; rule: string } };

async function verifyAll(
  deps: ResolveMediaDeps & { verifyHeadBytes: number },
  orgId: string,
  urls: readonly string[],
): Promise<Verified[]> {
  const deadlineAt = Date.now() + deps.fetch.deadlineMs;
  const slots = await takeSlots(deps, orgId, urls.length, deadlineAt);
  const outcomes: Verified[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    for (let position = next++; position < urls.length; position = next++) {
      const url = urls[position]!;
      const fetch = { ...deps.fetch, deadlineMs: Math.max(1, deadlineAt - Date.now()) };
      try {
        outcomes[position] = {
          ok: true,
          verification: await verifyUrl({ ...deps.ingest, headBytes: deps.verifyHeadBytes }, url, fetch),
        };
      } catch (error) {
        if (!isAppError(error) || error.status >= 500) throw error;
        const rule = typeof error.details?.[0]?.rule === 'string' ? error.details[0].rule : error.code;
        outcomes[position] = { ok: false, problem: { message: `${url}: ${error.message}`, rule } };
      }
    }
  };
  // Every worker settles before the slots go back; our own failure (a broken decoder) is the call's answer.
  const settled = await Promise.allSettled(slots.map(worker));
  for (const release of slots) release();
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return outcomes;
}
