import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError, isProviderError } from '../errors/provider-error.ts';
import { pollUntil } from '../http/poll.ts';
import { byteReaderOf, emptyMedia, uploadStep } from '../http/upload.ts';
import { type MediaInput } from '../types.ts';
import { classifyAssetStatus } from './linkedin.classify.ts';

export interface LinkedInRest {
  headers: (token: string) => Record<string, string>;
}

interface AssetStatus {
  status?: string;
  processingFailureReason?: string;
}

/**
 * Waits until an uploaded asset is AVAILABLE. Member tokens (`w_member_social`) may be write-only
 * and get 403 on reads; then there is nothing to poll and the post call is the check.
 */
async function waitAvailable(deps: AdapterDeps, rest: LinkedInRest, token: string, kind: 'images' | 'videos', urn: string): Promise<void> {
  await pollUntil(
    deps.polling,
    async () => {
      let asset: AssetStatus;
      try {
        asset = (await deps.client.request<AssetStatus>({ method: 'GET', url: `/rest/${kind}/${encodeURIComponent(urn)}`, headers: rest.headers(token) })).data;
      } catch (error) {
        if (isProviderError(error) && error.kind === 'permission_missing') return { done: true as const, value: undefined };
        throw error;
      }
      const failure = classifyAssetStatus(asset.status, asset.processingFailureReason);
      if (failure) throw new ProviderError({ network: 'linkedin', ...failure });
      return asset.status === 'AVAILABLE' ? { done: true as const, value: undefined } : { done: false as const };
    },
    () => new ProviderError({ network: 'linkedin', kind: 'transient', networkCode: 'PROCESSING', networkMessage: 'LinkedIn is still processing the media.' }),
  );
}

export async function uploadImage(deps: AdapterDeps, rest: LinkedInRest, token: string, owner: string, item: MediaInput): Promise<string> {
  const reader = await byteReaderOf(deps, 'linkedin', item);
  if (reader.size === 0) throw emptyMedia('linkedin');
  const init = await deps.client.request<{ value: { uploadUrl: string; image: string } }>({
    method: 'POST',
    url: '/rest/images',
    params: { action: 'initializeUpload' },
    data: { initializeUploadRequest: { owner } },
    headers: rest.headers(token),
  });
  const whole = { start: 0, end: reader.size - 1 };
  await uploadStep(deps.upload, reader.size, async (timeoutMs) =>
    deps.client.request({
      method: 'PUT',
      url: init.data.value.uploadUrl,
      data: await reader.read(whole),
      timeout: timeoutMs,
      maxBodyLength: Infinity,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': reader.contentType || 'application/octet-stream', 'Content-Length': String(reader.size) },
    }));
  await waitAvailable(deps, rest, token, 'images', init.data.value.image);
  return init.data.value.image;
}

interface VideoInit {
  value: { video: string; uploadToken?: string; uploadInstructions: { uploadUrl: string; firstByte: number; lastByte: number }[] };
}

export async function uploadVideo(deps: AdapterDeps, rest: LinkedInRest, token: string, owner: string, item: MediaInput): Promise<string> {
  const reader = await byteReaderOf(deps, 'linkedin', item);
  if (reader.size === 0) throw emptyMedia('linkedin');
  const init = await deps.client.request<VideoInit>({
    method: 'POST',
    url: '/rest/videos',
    params: { action: 'initializeUpload' },
    data: { initializeUploadRequest: { owner, fileSizeBytes: reader.size, uploadCaptions: false, uploadThumbnail: false } },
    headers: rest.headers(token),
  });
  const { video, uploadToken, uploadInstructions } = init.data.value;
  const etags: string[] = [];
  for (const part of uploadInstructions) {
    const span = { start: part.firstByte, end: Math.min(part.lastByte, reader.size - 1) };
    const length = span.end - span.start + 1;
    // Each part has its own upload URL: sending it again replaces it.
    const answer = await uploadStep(deps.upload, length, async (timeoutMs) =>
      deps.client.request({
        method: 'PUT',
        url: part.uploadUrl,
        data: await reader.read(span),
        timeout: timeoutMs,
        maxBodyLength: Infinity,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': String(length) },
      }));
    etags.push(String(answer.headers.etag ?? ''));
  }
  await deps.client.request({
    method: 'POST',
    url: '/rest/videos',
    params: { action: 'finalizeUpload' },
    data: { finalizeUploadRequest: { video, uploadToken: uploadToken ?? '', uploadedPartIds: etags } },
    headers: rest.headers(token),
  });
  await waitAvailable(deps, rest, token, 'videos', video);
  return video;
}
