import { checkAltText } from '../rules/alt-text.ts';
import { durationViolation, postTypeOf, shapeViolations } from '../rules/post-types.ts';
import { checkMediaUrls, refuseDocuments, codePoints, images, videos, violation } from '../rules/rule-helpers.ts';
import { type ContentInput, type ContentRules, type ContentViolation } from '../types.ts';

/** docs/networks.md §2.4: 63,206 chars; multi-photo via attached_media; one video, not mixed with photos. */
export const FACEBOOK_LIMITS = { maxText: 63206, maxImages: 10, maxVideos: 1 } as const;

/**
 * Facebook's kinds (docs/networks.md, "Post kinds"): `feed` (text, a link, photos or one video) and
 * `reel` (one video through `video_reels`, 3 to 90 s, 9:16, at least 540x960: META-REELS).
 */
export const FACEBOOK_POST_TYPES = ['feed', 'reel'] as const;

/**
 * A reel's bounds (META-REELS, "Video Specifications"). Meta states 9:16 exactly; 2% either way
 * takes the sizes encoders round to (1080x1916, 544x960: a 1.7% miss) and still refuses 4:5 or 1:1.
 */
export const FACEBOOK_KIND_LIMITS = {
  reel: { minSeconds: 3, maxSeconds: 90, ratio: [9, 16], tolerance: 0.02, minWidth: 540, minHeight: 960 },
} as const;

function reelViolations(input: ContentInput): ContentViolation[] {
  const [first] = input.media;
  if (input.media.length !== 1 || first?.kind !== 'video')
    return [violation('media_kind_mismatch', 'A Facebook reel is exactly one video, without photos.')];
  const limits = FACEBOOK_KIND_LIMITS.reel;
  return [
    ...durationViolation('reel_duration', 'A Facebook reel', first.durationMs, limits),
    ...shapeViolations('reel', 'A Facebook reel', first, limits),
  ];
}

export const facebookRules: ContentRules = {
  network: 'facebook',
  maxTextLength: FACEBOOK_LIMITS.maxText,
  requiresMedia: false,
  postTypes: FACEBOOK_POST_TYPES,
  maxMedia: FACEBOOK_LIMITS.maxImages,
  maxPerKind: { image: FACEBOOK_LIMITS.maxImages, video: FACEBOOK_LIMITS.maxVideos, document: 0 },
  check(input) {
    const found: ContentViolation[] = [];
    const kind = postTypeOf('facebook', input.options, FACEBOOK_POST_TYPES, 'feed');
    found.push(...kind.violations);
    if (codePoints(input.text) > FACEBOOK_LIMITS.maxText)
      found.push(violation('text_length', `Facebook posts are limited to ${FACEBOOK_LIMITS.maxText} characters.`));
    if (kind.postType === 'reel') found.push(...reelViolations(input));
    else if (input.text.trim() === '' && input.media.length === 0 && typeof input.options?.link !== 'string')
      found.push(violation('empty', 'A Facebook post needs text, a link or media.'));
    const imageCount = images(input.media).length;
    const videoCount = videos(input.media).length;
    if (imageCount > FACEBOOK_LIMITS.maxImages)
      found.push(violation('media_count', `A Facebook post holds at most ${FACEBOOK_LIMITS.maxImages} photos.`));
    if (videoCount > FACEBOOK_LIMITS.maxVideos)
      found.push(violation('media_count', 'A Facebook post holds at most one video.'));
    if (videoCount > 0 && imageCount > 0)
      found.push(violation('media_mix', 'A Facebook post cannot mix photos and a video.'));
    found.push(...checkAltText('facebook', input.media, kind.postType));
    return found.concat(refuseDocuments('facebook', input.media), checkMediaUrls(input));
  },
};
