import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { pollUntil } from '../http/poll.ts';
import { byteReaderOf, emptyMedia, readSpan, uploadStep } from '../http/upload.ts';
import { type MediaInput } from '../types.ts';
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

/**
 * v2 chunked upload for every media kind (networks.md §3.2): initialize -> append segments (read
 * one at a time from storage, each retried alone with a timeout for its size) -> finalize -> poll
 * STATUS while `processing_info` says so. Returns the media id once usable.
 */
export async function uploadXMedia(deps: AdapterDeps, token: string, item: MediaInput): Promise<string> {
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
      return deps.client.request({ method: 'POST', url: `/2/media/upload/${id}/append`, data: form, headers: auth, timeout: timeoutMs });
    });
  }
  const finalized = await deps.client.request<UploadAnswer>({ method: 'POST', url: `/2/media/upload/${id}/finalize`, headers: auth });
  let info = finalized.data.data?.processing_info;
  if (!info) return id;
  await pollUntil(
    deps.polling,
    async (attempt) => {
      if (attempt > 1 || info?.state !== 'succeeded') {
        const status = await deps.client.request<UploadAnswer>({ method: 'GET', url: '/2/media/upload', params: { command: 'STATUS', media_id: id }, headers: auth });
        info = status.data.data?.processing_info;
      }
      const failure = classifyMediaProcessing(info);
      if (failure) throw new ProviderError({ network: 'x', ...failure });
      return !info || info.state === 'succeeded' ? { done: true as const, value: id } : { done: false as const, delayHintMs: (info.check_after_secs ?? 1) * 1000 };
    },
    () => new ProviderError({ network: 'x', kind: 'transient', networkCode: 'media_processing_timeout', networkMessage: 'X is still processing the media.' }),
  );
  return id;
}
