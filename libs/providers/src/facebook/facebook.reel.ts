import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError, isProviderError } from '../errors/provider-error.ts';
import { type GraphApi } from '../graph/graph-api.ts';
import { graphTimeMs } from '../graph/graph-timeline.ts';
import { createCall } from '../http/create-call.ts';
import { pollUntil } from '../http/poll.ts';
import { uploadStep } from '../http/upload.ts';
import { type PublishInput, type PublishResult } from '../types.ts';
import { classifyVideoStatus } from './facebook.classify.ts';

/**
 * A reel attempt's handle: `reel:<video id>`. The video exists from `upload_phase=start` on, before
 * any post, so the handle names the attempt whatever happens after it; the `reel:` prefix tells it
 * from a feed video's id, whose post exists from its first call.
 */
const PREFIX = 'reel:';
export const reelHandle = (videoId: string) => PREFIX + videoId;
export const reelIdOf = (handle: string | undefined) =>
  handle?.startsWith(PREFIX) && handle.length > PREFIX.length ? handle.slice(PREFIX.length) : undefined;

export const reelUrl = (videoId: string) => `https://www.facebook.com/reel/${videoId}`;
export const reelResult = (videoId: string): PublishResult => ({ platformPostId: videoId, url: reelUrl(videoId) });

/** META-REELS, "Rate Limit": 30 reels published through the API per Page in a moving 24 h. */
export const REELS_PER_DAY = 30;
const DAY_MS = 86_400_000;

interface ReelStatus {
  video_status?: string;
  uploading_phase?: { status?: string };
  publishing_phase?: { status?: string };
}

/**
 * Where a reel's video stands (`GET /{video-id}?fields=status`): `failed` (processing refused it),
 * `published` (publishing complete and the video ready), `publishing` (finished, still processing),
 * `uploaded` (never finished: finishing it publishes it), `empty` (never uploaded).
 */
export type ReelStage = 'failed' | 'published' | 'publishing' | 'uploaded' | 'empty';

export function reelStage(status: ReelStatus | undefined): ReelStage {
  if (classifyVideoStatus(status)) return 'failed';
  const publishing = status?.publishing_phase?.status;
  if (publishing === 'complete' && status?.video_status === 'ready') return 'published';
  if (publishing !== undefined && publishing !== 'not_started') return 'publishing';
  return status?.uploading_phase?.status === 'complete' ? 'uploaded' : 'empty';
}

export const readReelStatus = async (api: GraphApi, videoId: string, token: string) =>
  (await api.get<{ status?: ReelStatus }>(`/${videoId}`, { fields: 'status' }, token)).status;

/**
 * When the Page may publish a reel again after a refusal of `video_reels`: the Page's reels of the
 * last 24 h (`GET /{page-id}/video_reels`, newest first) hold 30 or more, and a slot frees 24 h after
 * the 30th newest. Undefined when they hold fewer (the refusal was throttling of another kind) or
 * the list cannot be read: the caller keeps the refusal as it came.
 */
async function reelQuotaResetMs(
  api: GraphApi,
  pageId: string,
  token: string,
  nowMs: number,
): Promise<number | undefined> {
  try {
    const since = Math.floor((nowMs - DAY_MS) / 1000);
    const times: number[] = [];
    let after: string | undefined;
    do {
      const page = await api.get<{
        data?: { created_time?: string }[];
        paging?: { cursors?: { after?: string }; next?: string };
      }>(`/${pageId}/video_reels`, { fields: 'id,created_time', since, limit: 100, after }, token);
      for (const reel of page.data ?? []) times.push(graphTimeMs(reel.created_time));
      after = page.paging?.next ? page.paging.cursors?.after : undefined;
    } while (after !== undefined && times.length < REELS_PER_DAY);
    const recent = times.filter((at) => Number.isFinite(at) && at > nowMs - DAY_MS).sort((a, b) => b - a);
    const slot = recent[REELS_PER_DAY - 1];
    return slot === undefined ? undefined : Math.max(0, slot + DAY_MS - nowMs);
  } catch {
    return undefined;
  }
}

/**
 * Facebook reels (docs/networks.md §2.2, META-REELS): `video_reels?upload_phase=start` gives the
 * video id and an upload URL; the upload pulls the file from its public URL (`file_url` header);
 * `upload_phase=finish&video_state=PUBLISHED` publishes it; processing goes on after that, so the
 * video's status is polled until the reel is published.
 *
 * The video id is reported as the attempt's handle right after `start`. A lost `finish` answer is
 * reconciled through it (facebook.lookup.ts), and an attempt given it back (`resume`, once the reel
 * is known not to be published) finishes that same video instead of starting another: one video is
 * one reel, so finishing it again can never publish a second.
 */
export function createReelPublisher(api: GraphApi, deps: AdapterDeps) {
  const refusedForQuota = async (error: unknown, pageId: string, token: string): Promise<unknown> => {
    if (!isProviderError(error) || (error.kind !== 'rate_limited' && error.kind !== 'quota_exhausted')) return error;
    const retryAfterMs = await reelQuotaResetMs(api, pageId, token, deps.now());
    if (retryAfterMs === undefined) return error;
    return new ProviderError({
      network: 'facebook',
      kind: 'quota_exhausted',
      status: error.status,
      networkCode: error.networkCode,
      networkMessage: `This Page has published ${REELS_PER_DAY} reels through the API in the last 24 hours (Facebook: "${error.networkMessage}").`,
      retryAfterMs,
      cause: error,
    });
  };

  /** Starts a video and has Facebook pull the file into it; returns the video id. */
  const startAndUpload = async (input: PublishInput, pageId: string, token: string): Promise<string> => {
    const started = await api
      .post<{ video_id: string; upload_url: string }>(`/${pageId}/video_reels`, { upload_phase: 'start' }, token)
      .catch(async (error: unknown) => {
        throw await refusedForQuota(error, pageId, token);
      });
    await input.onHandle?.(reelHandle(started.video_id));
    // The upload host (rupload.facebook.com) takes the Page token as `OAuth`, the file as a URL it fetches.
    await uploadStep(deps.upload, 0, (timeoutMs) =>
      deps.client.request({
        method: 'POST',
        url: started.upload_url,
        timeout: timeoutMs,
        headers: { Authorization: `OAuth ${token}`, file_url: input.media[0]!.url },
      }),
    );
    return started.video_id;
  };

  const finish = async (input: PublishInput, pageId: string, token: string, videoId: string) => {
    try {
      await createCall(() =>
        api.post(
          `/${pageId}/video_reels`,
          { upload_phase: 'finish', video_id: videoId, video_state: 'PUBLISHED', description: input.text },
          token,
        ),
      );
    } catch (error) {
      throw await refusedForQuota(error, pageId, token);
    }
  };

  /** Past the polling the reel may still appear: the caller reconciles through the handle. */
  const waitPublished = (videoId: string, token: string) =>
    pollUntil(
      deps.handoffPolling,
      async () => {
        const status = await readReelStatus(api, videoId, token);
        const failure = classifyVideoStatus(status);
        if (failure) throw new ProviderError({ network: 'facebook', ...failure });
        return reelStage(status) === 'published' ? { done: true as const, value: true } : { done: false as const };
      },
      () =>
        new ProviderError({
          network: 'facebook',
          kind: 'transient',
          networkCode: 'reel_processing_timeout',
          networkMessage: 'Facebook is still processing the reel.',
          uncertain: true,
        }),
    );

  return async (input: PublishInput, pageId: string, token: string): Promise<PublishResult> => {
    const earlier = reelIdOf(input.resume);
    const stage = earlier === undefined ? 'empty' : reelStage(await readReelStatus(api, earlier, token));
    if (earlier !== undefined && stage === 'published') return reelResult(earlier);
    let videoId: string;
    if (earlier !== undefined && (stage === 'uploaded' || stage === 'publishing')) {
      videoId = earlier;
      await input.onHandle?.(reelHandle(videoId));
    } else {
      // No earlier video, or one that failed or was never uploaded: it holds no reel, a new one is started.
      videoId = await startAndUpload(input, pageId, token);
    }
    // An earlier video already finished and still processing is only waited for.
    if (!(videoId === earlier && stage === 'publishing')) await finish(input, pageId, token, videoId);
    await waitPublished(videoId, token);
    return reelResult(videoId);
  };
}
