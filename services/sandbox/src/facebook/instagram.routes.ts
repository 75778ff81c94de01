import { type Response, type Router } from 'express';
import { markPostCreated } from '../http/outcome-faults.ts';
import { type SandboxContext } from '../context.ts';
import { numericId, randomToken } from '../state/ids.ts';
import { bucHeaders, graphParams, idOf, requireGraphToken } from './graph-auth.ts';
import { graphError, invalidParameter, renderGraphFault } from './graph-errors.ts';
import { STORES, startDownload, type IgContainer, type IgMedia } from './graph-records.ts';
import { FETCH_FAILED } from './ig-container-processing.ts';

const MAX_CAPTION = 2200;
const MAX_CHILDREN = 10;
const MAX_ALT_TEXT = 1000;
const DAY_MS = 86_400_000;

/**
 * An image URL Instagram cannot fetch while creating the container: refused at once, in the body
 * recorded from production (gitroomhq/postiz-app#1900; docs/networks.md §1.3).
 */
function downloadFailed(res: Response, url: string): void {
  graphError(res, 400, {
    message: 'Only photo or video can be accepted as media type.',
    code: 9004,
    error_subcode: FETCH_FAILED,
    is_transient: false,
    error_user_title: "Media download has failed. The media URI doesn't meet our requirements.",
    error_user_msg: `The media could not be fetched from this URI: ${url}. Please check the following and try again: 1) The URI is publicly reachable. 2) The media meets the requirements.`,
  });
}

/** Instagram content publishing (docs/networks.md §1.2): containers, carousels, `media_publish`, quota. */
export function registerInstagram(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['instagram'], renderGraphFault);
  const auth = requireGraphToken(ctx);
  const buc = bucHeaders('instagram');
  const containers = state.store<IgContainer>(STORES.igContainers);
  const media = state.store<IgMedia>(STORES.igMedia);

  /** Posts published in the rolling 24 h, or since `sinceMs` when that is later (content_publishing_limit `since`). */
  const publishedInWindow = (igUserId: string, sinceMs = 0) =>
    state.posts.filter(
      (post) =>
        post.network === 'instagram' &&
        post.account === igUserId &&
        Date.parse(post.created_at) > Math.max(sinceMs, state.now() - DAY_MS),
    ).length;

  router.post('/:id/media', gate, auth, buc, async (req, res) => {
    const igUserId = idOf(req);
    const params = graphParams(req);
    const isCarouselItem = params.is_carousel_item === 'true';
    const caption = params.caption ?? '';
    if ([...caption].length > MAX_CAPTION)
      return invalidParameter(
        res,
        'The caption is too long.',
        2207010,
        'The caption should be 2200 characters or fewer.',
      );
    const mediaType = (params.media_type ?? (params.video_url ? 'VIDEO' : 'IMAGE')).toUpperCase();
    // alt_text describes images of feed posts and carousels only (IG User Media reference).
    if (params.alt_text !== undefined && (mediaType !== 'IMAGE' || !params.image_url))
      return invalidParameter(res, '(#100) The parameter alt_text is only supported for image posts.');
    if (mediaType === 'STORIES' && params.caption)
      return invalidParameter(res, '(#100) Param caption is not supported for media_type STORIES.');
    if (params.alt_text !== undefined && [...params.alt_text].length > MAX_ALT_TEXT)
      return invalidParameter(res, `(#100) alt_text must be at most ${MAX_ALT_TEXT} characters.`);
    const base = {
      id: numericId(17, '17'),
      igUserId,
      caption,
      isCarouselItem,
      polls: 0,
      errorText: undefined,
      statusCode: 'IN_PROGRESS' as const,
      options: {},
      altText: params.alt_text,
    };
    const { image_url: imageUrl, video_url: videoUrl } = params;
    if (params.collaborators) (base.options as Record<string, string>).collaborators = params.collaborators;

    if (mediaType === 'CAROUSEL') {
      if (params.collaborators) return invalidParameter(res, 'param collaborators is not allowed');
      let children: string[];
      try {
        children = params.children?.startsWith('[')
          ? (JSON.parse(params.children) as string[])
          : (params.children ?? '').split(',').filter(Boolean);
      } catch {
        return invalidParameter(res, '(#100) The parameter children is invalid.');
      }
      const valid = children.every((id) => {
        const child = containers.get(String(id));
        return child?.isCarouselItem === true && child.igUserId === igUserId;
      });
      if (children.length < 2 || children.length > MAX_CHILDREN || !valid) {
        return invalidParameter(
          res,
          'Carousel validation failed.',
          2207028,
          `A carousel needs 2 to ${MAX_CHILDREN} carousel item containers of this account.`,
        );
      }
      const container: IgContainer = {
        ...base,
        mediaType: 'CAROUSEL',
        kind: 'carousel',
        children: children.map(String),
        mediaUrl: undefined,
        download: undefined,
      };
      containers.set(container.id, container);
      return void res.json({ id: container.id });
    }

    if (mediaType === 'IMAGE' || (mediaType === 'STORIES' && imageUrl)) {
      if (!imageUrl) return invalidParameter(res, '(#100) The parameter image_url is required.');
      const download = await ctx.fetchMedia(imageUrl);
      if (!download.ok) return downloadFailed(res, imageUrl);
      if (download.format !== 'jpeg') {
        return graphError(res, 400, {
          message: 'Only photo or video can be accepted as media type.',
          code: 9004,
          error_subcode: 2207005,
          error_user_title: 'Unsupported image format',
          error_user_msg: 'The image format is not supported. Only JPEG images are supported.',
        });
      }
      const container: IgContainer = {
        ...base,
        mediaType: mediaType === 'STORIES' ? 'STORIES' : 'IMAGE',
        kind: 'image',
        children: [],
        mediaUrl: imageUrl,
        download: undefined,
      };
      containers.set(container.id, container);
      return void res.json({ id: container.id });
    }

    if (mediaType === 'VIDEO' && !isCarouselItem) {
      return invalidParameter(
        res,
        'The VIDEO media type is no longer supported for single videos. Please use REELS instead.',
        2207023,
      );
    }
    if (mediaType !== 'VIDEO' && mediaType !== 'REELS' && mediaType !== 'STORIES') {
      return invalidParameter(res, `(#100) The media type ${mediaType} is not supported.`, 2207023);
    }
    if (!videoUrl) return invalidParameter(res, '(#100) The parameter video_url is required.');
    const container: IgContainer = {
      ...base,
      mediaType,
      kind: 'video',
      children: [],
      mediaUrl: videoUrl,
      download: startDownload(ctx.fetchMedia, videoUrl),
    };
    containers.set(container.id, container);
    res.json({ id: container.id });
  });

  router.post('/:id/media_publish', gate, auth, buc, (req, res) => {
    const igUserId = idOf(req);
    const params = graphParams(req);
    const container = params.creation_id ? containers.get(params.creation_id) : undefined;
    if (!container || container.igUserId !== igUserId) {
      return graphError(res, 400, {
        message: 'Media ID is not available',
        code: 9007,
        error_subcode: 2207006,
        error_user_title: 'Media not found',
        error_user_msg: 'The media could not be found.',
      });
    }
    if (container.isCarouselItem)
      return invalidParameter(res, '(#100) A carousel item cannot be published on its own.');
    if (container.statusCode === 'IN_PROGRESS') {
      return graphError(res, 400, {
        message: 'Media ID is not available',
        code: 9007,
        error_subcode: 2207027,
        error_user_title: 'Media not ready for publishing',
        error_user_msg: 'The media is not ready for publishing, please wait for a moment',
      });
    }
    if (container.statusCode === 'PUBLISHED')
      return invalidParameter(res, '(#100) The media has already been published.');
    if (container.statusCode !== 'FINISHED') {
      return graphError(res, 400, {
        message: 'Media ID is not available',
        code: 9007,
        error_subcode: 2207006,
        error_user_msg: container.errorText ?? 'The media could not be found.',
      });
    }
    if (publishedInWindow(igUserId) >= ctx.igQuotaTotal) {
      return graphError(res, 400, {
        message: 'Application request limit reached',
        code: 9,
        error_subcode: 2207042,
        error_user_title: 'Max publishing limit reached',
        error_user_msg: 'You have reached the maximum number of posts that can be published in 24 hours.',
      });
    }
    container.statusCode = 'PUBLISHED';
    const shortcode = randomToken('C', 8).replace(/[-_]/g, 'x');
    const productType =
      container.mediaType === 'REELS' ? 'REELS' : container.mediaType === 'STORIES' ? 'STORY' : 'FEED';
    const item: IgMedia = {
      id: numericId(17, '17'),
      igUserId,
      shortcode,
      permalink: `https://www.instagram.com/${productType === 'REELS' ? 'reel' : 'p'}/${shortcode}/`,
      mediaType:
        container.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : container.mediaType === 'IMAGE' ? 'IMAGE' : 'VIDEO',
      productType,
      caption: container.caption,
      timestamp: new Date(state.now()).toISOString().replace(/\.\d{3}Z$/, '+0000'),
    };
    media.set(item.id, item);
    const children =
      container.mediaType === 'CAROUSEL' ? container.children.map((id) => containers.get(id)!) : [container];
    state.recordPost({
      network: 'instagram',
      id: item.id,
      account: igUserId,
      text: container.caption,
      media: children.map((child) => ({
        url: child.mediaUrl ?? '',
        kind: child.kind === 'image' ? 'image' : 'video',
        ...(child.altText === undefined ? {} : { alt_text: child.altText }),
      })),
      options: { media_type: container.mediaType, ...container.options },
      url: item.permalink,
      created_at: new Date(state.now()).toISOString(),
    });
    markPostCreated(res, 'instagram');
    res.json({ id: item.id });
  });

  router.get('/:id/content_publishing_limit', gate, auth, buc, (req, res) => {
    const since = graphParams(req).since;
    const sinceMs = since === undefined ? 0 : Number(since) * 1000;
    if (!Number.isFinite(sinceMs) || (since !== undefined && sinceMs < state.now() - DAY_MS - 60_000)) {
      return invalidParameter(res, 'since must be a Unix timestamp no older than 24 hours.');
    }
    res.json({
      data: [
        {
          quota_usage: publishedInWindow(idOf(req), sinceMs),
          config: { quota_total: ctx.igQuotaTotal, quota_duration: 86400 },
        },
      ],
    });
  });
}
