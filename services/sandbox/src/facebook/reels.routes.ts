import { type Request, type Response, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { markPostCreated } from '../http/outcome-faults.ts';
import { mp4Facts } from '../media/mp4-facts.ts';
import { numericId } from '../state/ids.ts';
import { bucHeaders, callerOf, graphParams, idOf, requireGraphToken } from './graph-auth.ts';
import { graphError, invalidParameter, renderGraphFault } from './graph-errors.ts';
import { STORES, type FbReel } from './graph-records.ts';

const DAY_MS = 86_400_000;
/** META-REELS: 30 API-published reels per Page in a moving 24 h, enforced on `video_reels`. */
export const REELS_PER_DAY = 30;
/**
 * META-REELS "Video Specifications": 3 to 90 s, 9:16, at least 540x960. Meta gives no tolerance on
 * the ratio; the sandbox takes 2% (the adapter's, docs/networks.md §2.4) so an encoder's rounding passes.
 */
const REEL_SPEC = { minMs: 3000, maxMs: 90_000, ratio: 9 / 16, tolerance: 0.02, minWidth: 540, minHeight: 960 };

export const reelPermalink = (id: string) => `/reel/${id}/`;

/** Why Facebook refuses to publish this file as a reel, in its words; undefined when it fits. */
function specProblem(facts: FbReel['facts']): string | undefined {
  if (facts === undefined || !['mp4', 'mov'].includes(facts.format))
    return 'The video file is not a supported format: upload an .mp4 file.';
  const seconds = (facts.durationMs / 1000).toFixed(1);
  if (facts.durationMs < REEL_SPEC.minMs || facts.durationMs > REEL_SPEC.maxMs)
    return `Reels must be between 3 and 90 seconds long (this video is ${seconds} s).`;
  if (Math.abs(facts.width / facts.height - REEL_SPEC.ratio) > REEL_SPEC.ratio * REEL_SPEC.tolerance)
    return `Reels must have a 9:16 aspect ratio (this video is ${facts.width}x${facts.height}).`;
  if (facts.width < REEL_SPEC.minWidth || facts.height < REEL_SPEC.minHeight)
    return `Reels must be at least 540x960 pixels (this video is ${facts.width}x${facts.height}).`;
  return undefined;
}

/**
 * Facebook Reels publishing (docs/networks.md §2.2, META-REELS): `POST /{page}/video_reels` with
 * `upload_phase=start` (a video id and an upload URL), the upload at that URL (`rupload`, here
 * `/facebook/video-upload/{v}/{video}` outside the versioned Graph paths) pulling `file_url`, then
 * `upload_phase=finish&video_state=PUBLISHED`, which checks the file against the reel spec and the
 * Page's 30 reels a day, and publishes: the reel is recorded (`GET /__sandbox/posts`) and listed by
 * `published_posts` and `GET /{page}/video_reels`. Its status is read through `GET /{video}`.
 */
export function registerReels(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['facebook'], renderGraphFault);
  const auth = requireGraphToken(ctx);
  const reels = state.store<FbReel>(STORES.fbReels);

  const publishedToday = (pageId: string) =>
    [...reels.values()].filter(
      (reel) => reel.pageId === pageId && reel.publishedAt !== undefined && reel.publishedAt > state.now() - DAY_MS,
    ).length;

  const mayPublish = (res: Response, pageId: string): boolean => {
    const caller = callerOf(res);
    if (!caller.issued || caller.pageId === pageId) return true;
    graphError(res, 403, {
      message:
        '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
      code: 200,
    });
    return false;
  };

  /** The publishing limit, refused like Graph's throttling (the exact code is not documented). */
  const overQuota = (res: Response, pageId: string): boolean => {
    if (publishedToday(pageId) < REELS_PER_DAY) return false;
    graphError(res, 400, {
      message: '(#4) Application request limit reached',
      code: 4,
      error_user_title: 'Reels publishing limit reached',
      error_user_msg: `This Page has published ${REELS_PER_DAY} reels through the API in the last 24 hours. Try again later.`,
    });
    return true;
  };

  const start = (req: Request, res: Response, pageId: string) => {
    if (overQuota(res, pageId)) return;
    const id = numericId(16);
    reels.set(id, {
      id,
      pageId,
      phase: 'started',
      fileUrl: undefined,
      facts: undefined,
      description: '',
      publishedAt: undefined,
      polls: 0,
    });
    const version = String((req.params as Record<string, unknown>).version ?? 'v25.0');
    res.json({ video_id: id, upload_url: `${ctx.publicUrl}/facebook/video-upload/${version}/${id}` });
  };

  const finish = (res: Response, pageId: string, params: Record<string, string>) => {
    const reel = params.video_id === undefined ? undefined : reels.get(params.video_id);
    if (!reel || reel.pageId !== pageId) return invalidParameter(res, '(#100) Invalid video_id');
    if (params.video_state !== 'PUBLISHED')
      return invalidParameter(res, '(#100) The sandbox publishes reels with video_state=PUBLISHED only.');
    // One video is one reel: finishing a published one again publishes nothing new.
    if (reel.phase === 'finished') return void res.json({ success: true, post_id: reel.id });
    if (reel.phase !== 'uploaded')
      return invalidParameter(res, '(#100) The video has not been uploaded: upload it before finishing.');
    const problem = specProblem(reel.facts);
    if (problem !== undefined)
      return graphError(res, 400, {
        message: 'Invalid parameter',
        code: 100,
        error_user_title: 'Reel does not meet requirements',
        error_user_msg: problem,
      });
    if (overQuota(res, pageId)) return;
    reel.phase = 'finished';
    reel.publishedAt = state.now();
    reel.description = params.description ?? '';
    state.recordPost({
      network: 'facebook',
      id: reel.id,
      account: pageId,
      text: reel.description,
      media: [{ url: reel.fileUrl ?? '', kind: 'video' }],
      options: { post_type: 'reel' },
      url: `https://www.facebook.com${reelPermalink(reel.id)}`,
      created_at: new Date(reel.publishedAt).toISOString(),
    });
    markPostCreated(res, 'facebook');
    res.json({ success: true, post_id: reel.id });
  };

  router.post('/:id/video_reels', gate, auth, bucHeaders('pages'), (req, res) => {
    const pageId = idOf(req);
    if (!mayPublish(res, pageId)) return;
    const params = graphParams(req);
    const phase = (params.upload_phase ?? '').toLowerCase();
    if (phase === 'start') return start(req, res, pageId);
    if (phase === 'finish') return finish(res, pageId, params);
    invalidParameter(res, '(#100) upload_phase must be one of start, finish.');
  });
}

/**
 * The upload host (`rupload.facebook.com/video-upload/{v}/{video}`): `Authorization: OAuth <Page
 * token>` and a `file_url` header it pulls the file from. Byte uploads (`offset`, `file_size`) are
 * not served: the adapters give hosted files.
 */
export function registerReelUpload(router: Router, ctx: SandboxContext): void {
  const reels = ctx.state.store<FbReel>(STORES.fbReels);
  const auth = requireGraphToken(ctx);
  router.post('/video-upload/:version/:videoId', ctx.gate(['facebook'], renderGraphFault), auth, async (req, res) => {
    const reel = reels.get(String(req.params.videoId));
    const caller = callerOf(res);
    if (!reel || (caller.issued && caller.pageId !== reel.pageId))
      return invalidParameter(res, '(#100) Invalid video id for this upload session.');
    const fileUrl = req.get('file_url');
    if (!fileUrl) return invalidParameter(res, '(#100) The sandbox takes reel uploads by file_url only.');
    if (reel.phase !== 'started') return void res.json({ success: true });
    const download = await ctx.fetchMedia(fileUrl);
    if (!download.ok)
      return graphError(res, 400, {
        message: 'Invalid parameter',
        code: 100,
        error_subcode: 2069019,
        error_user_title: 'Invalid file',
        error_user_msg: `The file could not be downloaded from the URL ${fileUrl}.`,
      });
    const facts = mp4Facts(download.bytes);
    reel.fileUrl = fileUrl;
    reel.facts = facts === undefined ? undefined : { format: download.format, ...facts };
    reel.phase = 'uploaded';
    res.json({ success: true });
  });
}

/** `GET /{video}` of a reel: Graph's `status` phases and the reel's permalink. */
export function reelView(reel: FbReel, processingPolls: number): Record<string, unknown> {
  const uploaded = reel.phase !== 'started';
  let publishing: Record<string, unknown> = { status: 'not_started' };
  let videoStatus = uploaded ? 'processing' : 'upload_pending';
  let processing = 'not_started';
  if (reel.phase === 'finished') {
    const ready = reel.polls >= processingPolls;
    reel.polls += 1;
    videoStatus = ready ? 'ready' : 'processing';
    processing = ready ? 'complete' : 'in_progress';
    publishing = ready
      ? {
          status: 'complete',
          publish_status: 'published',
          publish_time: Math.floor((reel.publishedAt ?? 0) / 1000),
        }
      : { status: 'in_progress' };
  }
  return {
    id: reel.id,
    description: reel.description,
    permalink_url: reelPermalink(reel.id),
    status: {
      video_status: videoStatus,
      uploading_phase: { status: uploaded ? 'complete' : 'not_started' },
      processing_phase: { status: processing },
      publishing_phase: publishing,
    },
  };
}
