import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { createCall } from '../http/create-call.ts';
import { pollUntil } from '../http/poll.ts';
import { uploadStep, type ByteReader } from '../http/upload.ts';
import { type PublishInput } from '../types.ts';
import { classifyPublishFailure, classifyTikTok } from './tiktok.classify.ts';

const MB = 1024 * 1024;
const MAX_CHUNK = 64 * MB;
/** The chunk we prefer: small enough to retry cheaply, large enough to stay far below 1000 chunks. */
const PREFERRED_CHUNK = 10 * MB;
const MAX_CHUNKS = 1000;

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
        throw new ProviderError({
          network: 'tiktok',
          status: response.status,
          ...classifyTikTok({ status: response.status, headers: {}, data: response.data }, deps.now()),
        });
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
    postIds: ids
      .split(',')
      .map((id) => id.trim().replace(/^"|"$/g, ''))
      .filter(Boolean),
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
    throw new ProviderError({
      network: 'tiktok',
      status: response.status,
      ...classifyTikTok(
        { status: response.status, headers: {}, data: JSON.parse(response.data) as unknown },
        deps.now(),
      ),
    });
  }
  return status;
}

/**
 * Polls until PUBLISH_COMPLETE and, for non-private posts, until moderation yields the public id.
 * Returns the id, or undefined when the post stays private (SELF_ONLY) or moderation is still running.
 */
export async function waitPublished(
  deps: AdapterDeps,
  token: string,
  publishId: string,
  expectPublicId: boolean,
): Promise<string | undefined> {
  let completed = false;
  try {
    return await pollUntil(
      deps.handoffPolling,
      async () => {
        const status = await fetchStatus(deps, token, publishId);
        if (status.status === 'FAILED')
          throw new ProviderError({ network: 'tiktok', ...classifyPublishFailure(status.failReason) });
        // An inbox upload ends here: the draft waits for the creator, with no post id of its own.
        if (status.status === 'SEND_TO_USER_INBOX') return { done: true as const, value: undefined };
        if (status.status !== 'PUBLISH_COMPLETE') return { done: false as const };
        completed = true;
        const [id] = status.postIds;
        return id || !expectPublicId ? { done: true as const, value: id } : { done: false as const };
      },
      // Still processing: it may yet publish, so the caller reconciles through the publish id.
      () =>
        new ProviderError({
          network: 'tiktok',
          kind: 'transient',
          networkCode: 'PROCESSING',
          networkMessage: 'TikTok is still processing the post.',
          uncertain: true,
        }),
    );
  } catch (error) {
    // Published but not yet public: the post exists, so it must not be retried.
    if (completed) return undefined;
    throw error;
  }
}

export interface ChunkPlan {
  chunk_size: number;
  total_chunk_count: number;
}

/**
 * FILE_UPLOAD's chunk plan, exactly as TikTok's media transfer guide says (docs/networks.md §5.2): chunks
 * of 5 to 64 MB, `total_chunk_count = floor(video_size / chunk_size)`, the remainder riding in the last
 * chunk (at most 128 MB), and files under 5 MB in one chunk of their size. A file of 5 to 10 MB is one
 * chunk of its whole size (10 MB chunks would give `floor = 0` chunks: the bug this replaced).
 */
export function chunkPlan(size: number): ChunkPlan {
  if (size < PREFERRED_CHUNK) return { chunk_size: size, total_chunk_count: 1 };
  const chunk = Math.min(MAX_CHUNK, Math.max(PREFERRED_CHUNK, Math.ceil(size / MAX_CHUNKS)));
  return { chunk_size: chunk, total_chunk_count: Math.floor(size / chunk) };
}

/** The inclusive byte spans of a plan: full chunks, the last one absorbing the remainder. */
export function chunkSpans(size: number, plan: ChunkPlan): { start: number; end: number }[] {
  return Array.from({ length: plan.total_chunk_count }, (_, index) => ({
    start: index * plan.chunk_size,
    end: index === plan.total_chunk_count - 1 ? size - 1 : (index + 1) * plan.chunk_size - 1,
  }));
}

/** Sends the chunks in order, each streamed from the reader with a timeout for its size and retried alone. */
export async function uploadFile(
  deps: AdapterDeps,
  uploadUrl: string,
  reader: ByteReader,
  plan: ChunkPlan,
): Promise<void> {
  for (const span of chunkSpans(reader.size, plan)) {
    const length = span.end - span.start + 1;
    await uploadStep(deps.upload, length, async (timeoutMs) =>
      deps.client.request({
        method: 'PUT',
        url: uploadUrl,
        data: await reader.read(span),
        timeout: timeoutMs,
        maxBodyLength: Infinity,
        headers: {
          'Content-Type': reader.contentType.startsWith('video/') ? reader.contentType : 'video/mp4',
          'Content-Length': String(length),
          'Content-Range': `bytes ${span.start}-${span.end}/${reader.size}`,
        },
      }),
    );
  }
}

/**
 * Whether TikTok will pull `url`: it must lie under a prefix (or domain) verified for the app, else
 * TikTok answers `url_ownership_unverified`. An origin prefix covers its whole host; a path prefix
 * only what is below it (`https://cdn.example.com/media` covers `/media/...`, not `/mediaX`).
 */
export function isVerifiedUrl(raw: string, prefixes: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return prefixes.some((prefixText) => {
    let prefix: URL;
    try {
      prefix = new URL(prefixText);
    } catch {
      return false;
    }
    if (prefix.protocol !== url.protocol || prefix.host !== url.host) return false;
    const path = prefix.pathname.endsWith('/') ? prefix.pathname : `${prefix.pathname}/`;
    return path === '/' || url.pathname.startsWith(path);
  });
}

export function postInfo(
  input: PublishInput,
  privacyLevel: string,
  creator: { comment_disabled?: boolean } = {},
): Record<string, unknown> {
  const flag = (name: string) => input.options?.[name] === true;
  return {
    privacy_level: privacyLevel,
    disable_comment: flag('disable_comment') || creator.comment_disabled === true,
    brand_content_toggle: flag('brand_content_toggle'),
    brand_organic_toggle: flag('brand_organic_toggle'),
  };
}

/**
 * Starts a photo post (`content/init`, `media_type: PHOTO`): TikTok pulls photos only from URL prefixes
 * verified for the app (there is no file upload for photos), so an unverified one is refused here,
 * before the call. `DIRECT_POST` publishes; `MEDIA_UPLOAD` sends to the creator's inbox (a draft).
 * Answers the publish id.
 */
export async function initPhotoPost(
  api: TikTokApi,
  token: string,
  input: PublishInput,
  verifiedUrlPrefixes: readonly string[],
  post: { mode: 'DIRECT_POST' | 'MEDIA_UPLOAD'; info?: Record<string, unknown> },
): Promise<string> {
  const unverified = input.media.find((item) => !isVerifiedUrl(item.url, verifiedUrlPrefixes));
  if (unverified !== undefined)
    throw new ProviderError({
      network: 'tiktok',
      kind: 'validation',
      networkCode: 'url_ownership_unverified',
      networkMessage: `TikTok pulls photos only from verified URL prefixes; ${unverified.url} is not under TIKTOK_VERIFIED_URL_PREFIXES.`,
    });
  const title = typeof input.options?.title === 'string' ? input.options.title : '';
  const init = await createCall(() =>
    api.post<{ publish_id: string }>('/v2/post/publish/content/init/', token, {
      media_type: 'PHOTO',
      post_mode: post.mode,
      post_info: { title, description: input.text, ...post.info },
      source_info: {
        source: 'PULL_FROM_URL',
        photo_cover_index: 0,
        photo_images: input.media.map((item) => item.url),
      },
    }),
  );
  return init.publish_id;
}
