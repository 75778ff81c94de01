import { isAppError, validationError, type ErrorDetail } from '@svc/errors';
import { discard, importUrl, type IngestDeps, type StoredMedia, type UrlFetchOptions } from '@svc/media';
import type { MediaRepository, MediaRow } from '../data/media.repository.ts';
import { recordMedia } from './record-media.ts';

export interface ResolveMediaDeps {
  media: MediaRepository;
  ingest: IngestDeps;
  fetch: UrlFetchOptions;
  quotaBytes: number;
}

/**
 * The media of a new job, in order: its `media_ids` (records of the organization; unknown or
 * foreign ids are a 400 naming them), then its `media_urls`, each distinct URL imported into the
 * library once for the whole job, so every target publishes the same checked bytes and a dead or
 * unusable link is a 400 now (naming the URL and the reason) rather than a failed delivery later.
 */
export async function resolveJobMedia(deps: ResolveMediaDeps, orgId: string, mediaIds: readonly string[], mediaUrls: readonly string[]): Promise<MediaRow[]> {
  const found = new Map((await deps.media.findMany(orgId, mediaIds)).map((row) => [row.id, row]));
  const details: ErrorDetail[] = [];
  mediaIds.forEach((id, index) => {
    if (!found.has(id)) details.push({ path: `/body/media_ids/${index}`, message: `media ${id} does not exist in this organization`, rule: 'unknown_media', media_id: id });
  });
  if (details.length > 0) throw validationError('The request names media that do not exist.', details);

  const distinct = [...new Set(mediaUrls)];
  const outcomes = await Promise.allSettled(distinct.map((url) => importUrl(deps.ingest, url, deps.fetch)));
  const stored = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const cleanup = () => Promise.all(stored.map((item) => discard(deps.ingest.storage, item.mediaId)));
  outcomes.forEach((outcome, position) => {
    if (outcome.status === 'fulfilled') return;
    const url = distinct[position]!;
    const reason = isAppError(outcome.reason) ? outcome.reason : undefined;
    const rule = typeof reason?.details?.[0]?.rule === 'string' ? reason.details[0].rule : (reason?.code ?? 'media_import');
    mediaUrls.forEach((candidate, index) => {
      if (candidate === url) details.push({ path: `/body/media_urls/${index}`, message: `${url}: ${reason?.message ?? 'the media could not be imported'}`, rule, url });
    });
  });
  if (details.length > 0) {
    await cleanup();
    // Our own failure (a busy decoder, a broken store) is not the URL's: the call fails as a whole.
    const ours = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected' && (!isAppError(outcome.reason) || outcome.reason.status >= 500));
    if (ours !== undefined) throw ours.reason;
    throw validationError('Some media URLs cannot be used.', details);
  }

  // Every URL was imported (positions of `stored` and `distinct` match). Records made before a
  // refusal (quota) stay, as library entries like any upload; the files not recorded go.
  const imported = new Map<string, MediaRow>();
  for (const [position, item] of stored.entries()) {
    try {
      imported.set(distinct[position]!, await record(deps, orgId, item, distinct[position]!));
    } catch (error) {
      await Promise.all(stored.slice(position).map((rest) => discard(deps.ingest.storage, rest.mediaId)));
      throw error;
    }
  }
  return [...mediaIds.map((id) => found.get(id)!), ...mediaUrls.map((url) => imported.get(url)!)];
}

const record = (deps: ResolveMediaDeps, orgId: string, item: StoredMedia, sourceUrl: string) =>
  recordMedia(deps, {
    id: item.mediaId,
    orgId,
    contentType: item.facts.contentType,
    kind: item.facts.kind,
    sizeBytes: item.facts.sizeBytes,
    width: item.facts.width,
    height: item.facts.height,
    durationMs: item.facts.durationMs,
    sha256: item.facts.sha256,
    sourceUrl,
    renditionSizeBytes: item.rendition?.sizeBytes ?? null,
    compatibility: item.compatibility,
  });
