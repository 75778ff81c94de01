import { isAppError, validationError, type ErrorDetail } from '@svc/errors';
import {
  discard,
  importUrl,
  type IngestDeps,
  type ConcurrencySlots,
  type ReleaseSlot,
  type StoredMedia,
  type UrlFetchOptions,
} from '@svc/media';
import type { MediaRepository, MediaRow } from '../data/media.repository.ts';
import { recordMedia, reserveQuota } from './record-media.ts';

export interface ResolveMediaDeps {
  media: MediaRepository;
  ingest: IngestDeps;
  fetch: UrlFetchOptions;
  quotaBytes: number;
  reservationTtlMs: number;
  /** The process's ingest slots, shared with nothing else in the publisher. */
  slots: ConcurrencySlots;
  /** URLs of one job imported at once, at most. */
  perJob: number;
}

interface Imported {
  stored: StoredMedia;
  reservationId: string;
}

/**
 * The job's slots, taken before any download: the first one waiting in line until the job's
 * deadline (then a 429 for the whole job: the accept's message is all it holds meanwhile), then up
 * to `perJob` while the organization and the process have them free.
 */
export async function takeSlots(
  deps: ResolveMediaDeps,
  orgId: string,
  wanted: number,
  deadlineAt: number,
): Promise<ReleaseSlot[]> {
  const held = [await deps.slots.acquireWithin(orgId, deadlineAt - Date.now())];
  while (held.length < Math.min(wanted, deps.perJob)) {
    try {
      held.push(deps.slots.acquire(orgId));
    } catch {
      break;
    }
  }
  return held;
}

/**
 * Imports `urls` with one worker per slot held, all within one deadline for the job (the accept runs
 * inside the gateway's RPC call); settles every URL, like Promise.allSettled.
 */
async function importAll(
  deps: ResolveMediaDeps,
  orgId: string,
  urls: readonly string[],
): Promise<PromiseSettledResult<Imported>[]> {
  const deadlineAt = Date.now() + deps.fetch.deadlineMs;
  const slots = await takeSlots(deps, orgId, urls.length, deadlineAt);
  const outcomes: PromiseSettledResult<Imported>[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    for (let position = next++; position < urls.length; position = next++) {
      const fetch = { ...deps.fetch, deadlineMs: Math.max(1, deadlineAt - Date.now()) };
      outcomes[position] = await importOne(deps, orgId, urls[position]!, fetch).then(
        (value) => ({ status: 'fulfilled' as const, value }),
        (reason: unknown) => ({ status: 'rejected' as const, reason }),
      );
    }
  };
  try {
    await Promise.all(slots.map(worker));
  } finally {
    for (const release of slots) release();
  }
  return outcomes;
}

/** Downloads one URL, its quota reserved before its bytes are stored (and given back if storing fails). */
async function importOne(
  deps: ResolveMediaDeps,
  orgId: string,
  url: string,
  fetch: UrlFetchOptions,
): Promise<Imported> {
  let reservationId: string | undefined;
  try {
    const stored = await importUrl(deps.ingest, url, fetch, {
      beforeStore: async (facts, renditionBytes) => {
        reservationId = await reserveQuota(deps, orgId, facts.sizeBytes + (renditionBytes ?? 0));
      },
    });
    return { stored, reservationId: reservationId! };
  } catch (error) {
    if (reservationId !== undefined) await deps.media.release(orgId, reservationId);
    throw error;
  }
}

const concernsTheJob = (reason: unknown) =>
  !isAppError(reason) ||
  reason.status >= 500 ||
  reason.code === 'rate_limited' ||
  reason.details?.[0]?.rule === 'org_storage_quota';

/**
 * The media of a new job, in order: its `media_ids` (records of the organization; unknown or
 * foreign ids are a 400 naming them), then its `media_urls`, each distinct URL imported into the
 * library once for the whole job, so every target publishes the same checked bytes and a dead or
 * unusable link is a 400 now (naming the URL and the reason) rather than a failed delivery later.
 */
export async function resolveJobMedia(
  deps: ResolveMediaDeps,
  orgId: string,
  mediaIds: readonly string[],
  mediaUrls: readonly string[],
): Promise<MediaRow[]> {
  const found = new Map((await deps.media.findMany(orgId, mediaIds)).map((row) => [row.id, row]));
  const details: ErrorDetail[] = [];
  mediaIds.forEach((id, index) => {
    if (!found.has(id))
      details.push({
        path: `/body/media_ids/${index}`,
        message: `media ${id} does not exist in this organization`,
        rule: 'unknown_media',
        media_id: id,
      });
  });
  if (details.length > 0) throw validationError('The request names media that do not exist.', details);

  const distinct = [...new Set(mediaUrls)];
  if (distinct.length === 0) return mediaIds.map((id) => found.get(id)!);
  const outcomes = await importAll(deps, orgId, distinct);
  const stored = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const forget = (item: Imported) =>
    Promise.all([discard(deps.ingest.storage, item.stored.mediaId), deps.media.release(orgId, item.reservationId)]);
  const cleanup = () => Promise.all(stored.map(forget));
  outcomes.forEach((outcome, position) => {
    if (outcome.status === 'fulfilled') return;
    const url = distinct[position]!;
    const reason = isAppError(outcome.reason) ? outcome.reason : undefined;
    const rule =
      typeof reason?.details?.[0]?.rule === 'string' ? reason.details[0].rule : (reason?.code ?? 'media_import');
    mediaUrls.forEach((candidate, index) => {
      if (candidate === url)
        details.push({
          path: `/body/media_urls/${index}`,
          message: `${url}: ${reason?.message ?? 'the media could not be imported'}`,
          rule,
          url,
        });
    });
  });
  if (details.length > 0) {
    await cleanup();
    // Our own failure (a busy decoder, a broken store), a full process or a full quota is the job's
    // answer, not a problem of one URL: the call fails as a whole.
    const whole = outcomes.find(
      (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected' && concernsTheJob(outcome.reason),
    );
    if (whole !== undefined) throw whole.reason;
    throw validationError('Some media URLs cannot be used.', details);
  }

  // Every URL was imported (positions of `stored` and `distinct` match). Records made before a
  // refusal (quota) stay, as library entries like any upload; the files not recorded go.
  const imported = new Map<string, MediaRow>();
  for (const [position, item] of stored.entries()) {
    try {
      imported.set(distinct[position]!, await record(deps, orgId, item, distinct[position]!));
    } catch (error) {
      await Promise.all(stored.slice(position).map(forget));
      throw error;
    }
  }
  return [...mediaIds.map((id) => found.get(id)!), ...mediaUrls.map((url) => imported.get(url)!)];
}

const record = (deps: ResolveMediaDeps, orgId: string, { stored: item, reservationId }: Imported, sourceUrl: string) =>
  recordMedia(
    deps,
    {
      id: item.mediaId,
      orgId,
      contentType: item.facts.contentType,
      kind: item.facts.kind,
      sizeBytes: item.facts.sizeBytes,
      width: item.facts.width,
      height: item.facts.height,
      durationMs: item.facts.durationMs,
      pageCount: item.facts.pageCount,
      sha256: item.facts.sha256,
      sourceUrl,
      renditionSizeBytes: item.rendition?.sizeBytes ?? null,
      compatibility: item.compatibility,
    },
    reservationId,
  );
