import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError, isProviderError } from '../errors/provider-error.ts';
import { pollUntil } from '../http/poll.ts';
import { byteReaderOf, emptyMedia, uploadStep } from '../http/upload.ts';
import { mediaHandle, mediaIdsOf } from '../lookup/media-handle.ts';
import { type MediaInput, type PublishInput } from '../types.ts';
import { classifyAssetStatus } from './linkedin.classify.ts';

export interface LinkedInRest {
  headers: (token: string) => Record<string, string>;
}

interface AssetStatus {
  status?: string;
  processingFailureReason?: string;
}

const collectionOf = (urn: string) =>
  urn.startsWith('urn:li:video:') ? 'videos' : urn.startsWith('urn:li:document:') ? 'documents' : 'images';
const assetPath = (urn: string) => `/rest/${collectionOf(urn)}/${encodeURIComponent(urn)}`;

/**
 * The image, video and document URNs of a post, ready to attach: reused from `input.resume` while LinkedIn
 * still has them, otherwise uploaded; reported through `onHandle` before processing is awaited; then
 * awaited for `handoffPolling` only. Past that the call fails retryable (`media_processing`) without
 * holding the caller's worker, and the next attempt resumes from the stored URNs.
 */
export async function readyLinkedInMedia(
  deps: AdapterDeps,
  rest: LinkedInRest,
  token: string,
  owner: string,
  input: PublishInput,
): Promise<string[]> {
  if (input.media.length === 0) return [];
  const urns =
    (await reusable(deps, rest, token, mediaIdsOf(input.resume), input.media.length)) ??
    (await uploadAll(deps, rest, token, owner, input.media));
  await input.onHandle?.(mediaHandle(urns));
  for (const urn of urns) await waitAvailable(deps, rest, token, urn);
  return urns;
}

async function uploadAll(
  deps: AdapterDeps,
  rest: LinkedInRest,
  token: string,
  owner: string,
  items: MediaInput[],
): Promise<string[]> {
  const urns: string[] = [];
  for (const item of items)
    urns.push(
      item.kind === 'video'
        ? await uploadVideo(deps, rest, token, owner, item)
        : await uploadWhole(deps, rest, token, owner, item, item.kind === 'document' ? 'documents' : 'images'),
    );
  return urns;
}

/**
 * An earlier attempt's assets, if LinkedIn still has each one, processing or available. Any refusal
 * (gone, failed, or a write-only member token that cannot read them) means upload again: attaching
 * an asset that is gone would fail the post.
 */
async function reusable(
  deps: AdapterDeps,
  rest: LinkedInRest,
  token: string,
  urns: string[] | undefined,
  count: number,
): Promise<string[] | undefined> {
  if (urns === undefined || urns.length !== count) return undefined;
  for (const urn of urns) {
    try {
      const asset = (
        await deps.client.request<AssetStatus>({ method: 'GET', url: assetPath(urn), headers: rest.headers(token) })
      ).data;
      if (asset.status !== 'AVAILABLE' && asset.status !== 'PROCESSING') return undefined;
    } catch (error) {
      if (isProviderError(error) && error.status !== undefined && error.status >= 400 && error.status < 500)
        return undefined;
      throw error;
    }
  }
  return urns;
}

/**
 * Waits until an uploaded asset is AVAILABLE. Member tokens (`w_member_social`) may be write-only
 * and get 403 on reads; then there is nothing to poll and the post call is the check.
 */
async function waitAvailable(deps: AdapterDeps, rest: LinkedInRest, token: string, urn: string): Promise<void> {
  await pollUntil(
    deps.handoffPolling,
    async () => {
      let asset: AssetStatus;
      try {
        asset = (
          await deps.client.request<AssetStatus>({ method: 'GET', url: assetPath(urn), headers: rest.headers(token) })
        ).data;
      } catch (error) {
        if (isProviderError(error) && error.kind === 'permission_missing')
          return { done: true as const, value: undefined };
        throw error;
      }
      const failure = classifyAssetStatus(asset.status, asset.processingFailureReason);
      if (failure) throw new ProviderError({ network: 'linkedin', ...failure });
      return asset.status === 'AVAILABLE' ? { done: true as const, value: undefined } : { done: false as const };
    },
    () =>
      new ProviderError({
        network: 'linkedin',
        kind: 'transient',
        networkCode: 'media_processing',
        networkMessage: 'LinkedIn is still processing the media; the next attempt resumes with the uploaded media.',
      }),
  );
}

/**
 * Images and documents (a PDF) go in one PUT: `initializeUpload` answers the upload URL and the
 * asset's URN (`value.image` or `value.document`); the Documents API then processes the file like an
 * image (PROCESSING to AVAILABLE).
 */
async function uploadWhole(
  deps: AdapterDeps,
  rest: LinkedInRest,
  token: string,
  owner: string,
  item: MediaInput,
  collection: 'images' | 'documents',
): Promise<string> {
  const reader = await byteReaderOf(deps, 'linkedin', item);
  if (reader.size === 0) throw emptyMedia('linkedin');
  const init = await deps.client.request<{ value: { uploadUrl: string; image?: string; document?: string } }>({
    method: 'POST',
    url: `/rest/${collection}`,
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
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': reader.contentType || 'application/octet-stream',
        'Content-Length': String(reader.size),
      },
    }),
  );
  const urn = collection === 'documents' ? init.data.value.document : init.data.value.image;
  if (urn === undefined)
    throw new ProviderError({
      network: 'linkedin',
      kind: 'transient',
      networkMessage: `LinkedIn did not return the ${collection === 'documents' ? 'document' : 'image'} URN.`,
    });
  return urn;
}

interface VideoInit {
  value: {
    video: string;
    uploadToken?: string;
    uploadInstructions: { uploadUrl: string; firstByte: number; lastByte: number }[];
  };
}

async function uploadVideo(
  deps: AdapterDeps,
  rest: LinkedInRest,
  token: string,
  owner: string,
  item: MediaInput,
): Promise<string> {
  const reader = await byteReaderOf(deps, 'linkedin', item);
  if (reader.size === 0) throw emptyMedia('linkedin');
  const init = await deps.client.request<VideoInit>({
    method: 'POST',
    url: '/rest/videos',
    params: { action: 'initializeUpload' },
    data: {
      initializeUploadRequest: { owner, fileSizeBytes: reader.size, uploadCaptions: false, uploadThumbnail: false },
    },
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
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(length),
        },
      }),
    );
    etags.push(String(answer.headers.etag ?? ''));
  }
  await deps.client.request({
    method: 'POST',
    url: '/rest/videos',
    params: { action: 'finalizeUpload' },
    data: { finalizeUploadRequest: { video, uploadToken: uploadToken ?? '', uploadedPartIds: etags } },
    headers: rest.headers(token),
  });
  return video;
}
