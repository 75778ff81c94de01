import { checkAltText } from '../rules/alt-text.ts';
import { postTypeOf } from '../rules/post-types.ts';
import { checkMediaUrls, refuseDocuments, images, videos, violation } from '../rules/rule-helpers.ts';
import { X_MAX_WEIGHTED_LENGTH, xTextLimit, xWeightedLength } from '../rules/x-text.ts';
import { type ContentRules, type ContentViolation } from '../types.ts';

/** docs/networks.md §3.4: 280 weighted characters (more for Premium accounts); up to 4 images, or 1 video, never mixed. */
export const X_LIMITS = { maxWeighted: X_MAX_WEIGHTED_LENGTH, maxImages: 4, maxVideos: 1 } as const;

export const X_POST_TYPES = ['post'] as const;

export const xRules: ContentRules = {
  network: 'x',
  maxTextLength: X_LIMITS.maxWeighted,
  requiresMedia: false,
  postTypes: X_POST_TYPES,
  maxMedia: X_LIMITS.maxImages,
  maxPerKind: { image: X_LIMITS.maxImages, video: X_LIMITS.maxVideos, document: 0 },
  check(input) {
    const found: ContentViolation[] = [];
    const kind = postTypeOf('x', input.options, X_POST_TYPES, 'post');
    found.push(...kind.violations);
    const weighted = xWeightedLength(input.text);
    const limit = xTextLimit(input.account);
    if (weighted > limit)
      found.push(
        violation(
          'text_length',
          `X posts from this account are limited to ${limit} weighted characters (this text counts ${weighted}).`,
        ),
      );
    if (input.text.trim() === '' && input.media.length === 0)
      found.push(violation('empty', 'An X post needs text or media.'));
    const imageCount = images(input.media).length;
    const videoCount = videos(input.media).length;
    if (imageCount > X_LIMITS.maxImages)
      found.push(violation('media_count', `An X post holds at most ${X_LIMITS.maxImages} images.`));
    if (videoCount > X_LIMITS.maxVideos) found.push(violation('media_count', 'An X post holds at most one video.'));
    if (videoCount > 0 && imageCount > 0)
      found.push(violation('media_mix', 'An X post cannot mix images and a video.'));
    found.push(...checkAltText('x', input.media, kind.postType));
    return found.concat(refuseDocuments('x', input.media), checkMediaUrls(input));
  },
};
