import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { pollUntil } from '../http/poll.ts';
import { type MediaInput } from '../types.ts';
import { classifyMediaProcessing } from './x.classify.ts';

const CHUNK_BYTES = 1024 * 1024;

interface UploadAnswer {
  data?: { id?: string; processing_info?: { state?: string; check_after_secs?: number } };
}

function categoryOf(item: MediaInput, contentType: string): { mediaType: string; category: string } {
  const mediaType = contentType.split(';')[0]?.trim() || (item.kind === 'video' ? 'video/mp4' : 'image/jpeg');
  if (mediaType === 'image/gif') return { mediaType, category: 'tweet_gif' };
  return { mediaType, category: item.kind === 'video' ? 'tweet_video' : 'tweet_image' };
}

/**
 * v2 chunked upload for every media kind (networks.md §3.2): initialize -> append (1 MB parts) ->
 * finalize -> poll STATUS while `processing_info` says so. Returns the media id once usable.
 */
export async function uploadXMedia(deps: AdapterDeps, token: string, item: MediaInput): Promise<string> {
  const { bytes, contentType } = await deps.fetchMedia('x', item.url);
  const { mediaType, category } = categoryOf(item, contentType);
  const auth = { Authorization: `Bearer ${token}` };
  const init = await deps.client.request<UploadAnswer>({
    method: 'POST',
    url: '/2/media/upload/initialize',
    data: { media_type: mediaType, total_bytes: bytes.length, media_category: category },
    headers: auth,
  });
  const id = init.data.data?.id;
  if (!id) throw new ProviderError({ network: 'x', kind: 'transient', networkMessage: 'X did not return a media id.' });
  for (let offset = 0, index = 0; offset < bytes.length; offset += CHUNK_BYTES, index += 1) {
    const form = new FormData();
    form.append('media', new Blob([bytes.subarray(offset, offset + CHUNK_BYTES)]), 'media');
    form.append('segment_index', String(index));
    await deps.client.request({ method: 'POST', url: `/2/media/upload/${id}/append`, data: form, headers: auth });
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
