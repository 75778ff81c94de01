import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { pollUntil } from '../http/poll.ts';
import { type PublishInput } from '../types.ts';
import { classifyPublishFailure, classifyTikTok } from './tiktok.classify.ts';

const MIN_CHUNK = 5 * 1024 * 1024;
const CHUNK = 10 * 1024 * 1024;

export interface TikTokApi {
  /** POST with the v2 envelope; a 200 whose `error.code` is not `ok` is thrown classified. */
  post<T>(path: string, token: string, data?: unknown, params?: Record<string, string>): Promise<T>;
}

export function createTikTokApi(deps: AdapterDeps): TikTokApi {
  return {
    async post<T>(path: string, token: string, data?: unknown, params?: Record<string, string>): Promise<T> {
      const response = await deps.client.request<{ data?: T; error?: { code?: string } }>({
        method: 'POST',
        url: path,
        data: data ?? {},
        ...(params ? { params } : {}),
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json; charset=UTF-8' },
      });
      if (response.data.error?.code !== undefined && response.data.error.code !== 'ok') {
        throw new ProviderError({ network: 'tiktok', status: response.status, ...classifyTikTok({ status: response.status, headers: {}, data: response.data }, deps.now()) });
      }
      return response.data.data as T;
    },
  };
}

interface Status {
  status: string;
  failReason: string;
  postIds: string[];
}

/**
 * `publicaly_available_post_id` (sic) holds int64 numbers beyond 2^53: JSON.parse would corrupt
 * them, so the ids are read from the raw text.
 */
export function parseStatus(raw: string): Status & { errorCode: string | undefined } {
  const ids = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(raw)?.[1] ?? '';
  const body = JSON.parse(raw) as { data?: { status?: string; fail_reason?: string }; error?: { code?: string } };
  return {
    status: body.data?.status ?? '',
    failReason: body.data?.fail_reason ?? '',
    postIds: ids.split(',').map((id) => id.trim().replace(/^"|"$/g, '')).filter(Boolean),
    errorCode: body.error?.code,
  };
}

export async function fetchStatus(deps: AdapterDeps, token: string, publishId: string): Promise<Status> {
  const response = await deps.client.request<string>({
    method: 'POST',
    url: '/v2/post/publish/status/fetch/',
    data: { publish_id: publishId },
    responseType: 'text',
    transformResponse: (value: unknown) => value,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json; charset=UTF-8' },
  });
  const status = parseStatus(response.data);
  if (status.errorCode !== undefined && status.errorCode !== 'ok') {
    throw new ProviderError({ network: 'tiktok', status: response.status, ...classifyTikTok({ status: response.status, headers: {}, data: JSON.parse(response.data) as unknown }, deps.now()) });
  }
  return status;
}

/**
 * Polls until PUBLISH_COMPLETE and, for non-private posts, until moderation yields the public id.
 * Returns the id, or undefined when the post stays private (SELF_ONLY) or moderation is still running.
 */
export async function waitPublished(deps: AdapterDeps, token: string, publishId: string, expectPublicId: boolean): Promise<string | undefined> {
  let completed = false;
  try {
    return await pollUntil(
      deps.polling,
      async () => {
        const status = await fetchStatus(deps, token, publishId);
        if (status.status === 'FAILED') throw new ProviderError({ network: 'tiktok', ...classifyPublishFailure(status.failReason) });
        if (status.status !== 'PUBLISH_COMPLETE') return { done: false as const };
        completed = true;
        const [id] = status.postIds;
        return id || !expectPublicId ? { done: true as const, value: id } : { done: false as const };
      },
      () => new ProviderError({ network: 'tiktok', kind: 'transient', networkCode: 'PROCESSING', networkMessage: 'TikTok is still processing the post.' }),
    );
  } catch (error) {
    // Published but not yet public: the post exists, so it must not be retried.
    if (completed) return undefined;
    throw error;
  }
}

/** FILE_UPLOAD: one chunk under 5 MB, else 10 MB chunks with the remainder in the last one. */
export async function uploadFile(deps: AdapterDeps, uploadUrl: string, bytes: Buffer): Promise<void> {
  const chunk = bytes.length < MIN_CHUNK ? bytes.length : CHUNK;
  const count = bytes.length < MIN_CHUNK ? 1 : Math.floor(bytes.length / chunk);
  for (let index = 0; index < count; index += 1) {
    const first = index * chunk;
    const last = index === count - 1 ? bytes.length - 1 : first + chunk - 1;
    await deps.client.request({
      method: 'PUT',
      url: uploadUrl,
      data: bytes.subarray(first, last + 1),
      headers: { 'Content-Type': 'video/mp4', 'Content-Range': `bytes ${first}-${last}/${bytes.length}` },
    });
  }
}

export const chunkPlan = (size: number) => (size < MIN_CHUNK ? { chunk_size: size, total_chunk_count: 1 } : { chunk_size: CHUNK, total_chunk_count: Math.floor(size / CHUNK) });

export function postInfo(input: PublishInput, privacyLevel: string): Record<string, unknown> {
  const flag = (name: string) => input.options?.[name] === true;
  return {
    privacy_level: privacyLevel,
    disable_comment: flag('disable_comment'),
    brand_content_toggle: flag('brand_content_toggle'),
    brand_organic_toggle: flag('brand_organic_toggle'),
  };
}
