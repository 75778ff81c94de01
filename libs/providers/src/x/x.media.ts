import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError, isProviderError } from '../errors/provider-error.ts';
import { pollUntil } from '../http/poll.ts';
import { byteReaderOf, emptyMedia, readSpan, uploadStep } from '../http/upload.ts';
import { mediaHandle, mediaIdsOf } from '../lookup/media-handle.ts';
import { type MediaInput, type PublishInput } from '../types.ts';
import { classifyMediaProcessing } from './x.classify.ts';

/** APPEND segment sizes: X takes up to about 5 MB a segment; videos go in 4 MB pieces, images in 1 MB. */
const IMAGE_SEGMENT = 1024 * 1024;
const VIDEO_SEGMENT = 4 * 1024 * 1024;

interface UploadAnswer {
  data?: { id?: string; processing_info?: { state?: string; check_after_secs?: number } };
}

const KNOWN = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4', 'video/quicktime']);

/**
 * `media_type` and `media_category` from the file's type: the sniffed one for library media, so a
 * host serving `application/octet-stream` still gives X the real type; for a plain URL whose server
 * names no usable type, the kind decides (JPEG image or MP4 video).
 */
export function categoryOf(item: MediaInput, contentType: string): { mediaType: string; category: string } {
  const declared = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const mediaType = KNOWN.has(declared) ? declared : item.kind === 'video' ? 'video/mp4' : 'image/jpeg';
  if (mediaType === 'image/gif') return { mediaType, category: 'tweet_gif' };
  return { mediaType, category: mediaType.startsWith('video/') ? 'tweet_video' : 'tweet_image' };
}

interface Uploaded {
  id: string;
  info: ProcessingInfo | undefined;
}

type ProcessingInfo = NonNullable<NonNullable<UploadAnswer['data']>['processing_info']>;

/**
 * The media ids of a post, ready to attach: reused from `input.resume` while X still holds them,
 * otherwise uploaded; reported through `onHandle` before X's processing is awaited; then awaited for
 * `handoffPolling` only. Past that the call fails retryable (`media_processing`) without holding
 * the caller's worker, and the next attempt resumes from the stored ids: nothing is uploaded twice.
 */
export async function readyXMedia(deps: AdapterDeps, token: string, input: PublishInput): Promise<string[]> {
  if (input.media.length === 0) return [];
  const media =
    (await reusable(deps, token, mediaIdsOf(input.resume), input.media.length)) ??
    (await uploadAll(deps, token, input.media));
  await input.onHandle?.(mediaHandle(media.map((item) => item.id)));
  for (const item of media) await awaitProcessed(deps, token, item);
  // Alt text is metadata of the uploaded media, set before the post attaches it (setting it again on
  // resumed media is harmless: the same text replaces the same text).
  for (const [index, item] of input.media.entries())
    if (item.altText) await describeXMedia(deps, token, media[index]!.id, item.altText);
  return media.map((item) => item.id);
}

/** `POST /2/media/metadata` (docs.x.com x-api/media "Create Media metadata"): the image's alt text. */
async function describeXMedia(deps: AdapterDeps, token: string, id: string, text: string): Promise<void> {
  await deps.client.request({
    method: 'POST',
    url: '/2/media/metadata',
    data: { id, metadata: { alt_text: { text } } },
    headers: { Authorization: `Bearer ${token}` },
  });
}

async function uploadAll(deps: AdapterDeps, token: string, items: MediaInput[]): Promise<Uploaded[]> {
  const uploaded: Uploaded[] = [];
  for (const item of items) uploaded.push(await uploadXMedia(deps, token, item));
  return uploaded;
}

const statusOf = async (deps: AdapterDeps, token: string, id: string) =>
  (
    await deps.client.request<UploadAnswer>({
      method: 'GET',
      url: '/2/media/upload',
      params: { command: 'STATUS', media_id: id },
      headers: { Authorization: `Bearer ${token}` },
    })
  ).data.data?.processing_info;

/** An earlier attempt's media, if X still has every one (ids expire after a day): any refusal means upload again. */
async function reusable(
  deps: AdapterDeps,
  token: string,
  ids: string[] | undefined,
  count: number,
): Promise<Uploaded[] | undefined> {
  if (ids === undefined || ids.length !== count) return undefined;
  const media: Uploaded[] = [];
  for (const id of ids) {
    try {
      media.push({ id, info: await statusOf(deps, token, id) });
    } catch (error) {
      if (isProviderError(error) && error.status !== undefined && error.status >= 400 && error.status < 500)
        return undefined;
      throw error;
    }
  }
  return media;
}

/**
 * v2 chunked upload for every media kind (docs/networks.md §3.2): initialize -> append segments (read
 * one at a time from storage, each retried alone with a timeout for its size) -> finalize. Returns
 * the media id and the processing state finalize reported (none for images X takes at once).
 */
async function uploadXMedia(deps: AdapterDeps, token: string, item: MediaInput): Promise<Uploaded> {
  const reader = await byteReaderOf(deps, 'x', item);
  if (reader.size === 0) throw emptyMedia('x');
  const { mediaType, category } = categoryOf(item, reader.contentType);
  const auth = { Authorization: `Bearer ${token}` };
  const init = await deps.client.request<UploadAnswer>({
    method: 'POST',
    url: '/2/media/upload/initialize',
    data: { media_type: mediaType, total_bytes: reader.size, media_category: category },
    headers: auth,
  });
  const id = init.data.data?.id;
  if (!id) throw new ProviderError({ network: 'x', kind: 'transient', networkMessage: 'X did not return a media id.' });
  const segment = category === 'tweet_video' ? VIDEO_SEGMENT : IMAGE_SEGMENT;
  for (let offset = 0, index = 0; offset < reader.size; offset += segment, index += 1) {
    const span = { start: offset, end: Math.min(offset + segment, reader.size) - 1 };
    const bytes = await readSpan(reader, span);
    // Re-sending a segment index replaces it: the step is safe to retry.
    await uploadStep(deps.upload, bytes.length, (timeoutMs) => {
      const form = new FormData();
      form.append('media', new Blob([bytes]), 'media');
      form.append('segment_index', String(index));
      return deps.client.request({
        method: 'POST',
        url: `/2/media/upload/${id}/append`,
        data: form,
        headers: auth,
        timeout: timeoutMs,
      });
    });
  }
  const finalized = await deps.client.request<UploadAnswer>({
    method: 'POST',
    url: `/2/media/upload/${id}/finalize`,
    headers: auth,
  });
  return { id, info: finalized.data.data?.processing_info };
}

/** Polls STATUS while `processing_info` says X is still working on the file. */
async function awaitProcessed(deps: AdapterDeps, token: string, item: Uploaded): Promise<void> {
  let info = item.info;
  let hintMs: number | undefined;
  await pollUntil(
    deps.handoffPolling,
    async (attempt) => {
      if (attempt > 1 || (info !== undefined && info.state !== 'succeeded'))
        info = await statusOf(deps, token, item.id);
      const failure = classifyMediaProcessing(info);
      if (failure) throw new ProviderError({ network: 'x', ...failure });
      hintMs = (info?.check_after_secs ?? 1) * 1000;
      return !info || info.state === 'succeeded'
        ? { done: true as const, value: undefined }
        : { done: false as const, delayHintMs: hintMs };
    },
    () =>
      new ProviderError({
        network: 'x',
        kind: 'transient',
        networkCode: 'media_processing',
        retryAfterMs: hintMs,
        networkMessage: 'X is still processing the media; the next attempt resumes with the uploaded media.',
      }),
  );
}
