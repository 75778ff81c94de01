import { checkAltText } from '../rules/alt-text.ts';
import { postTypeOf } from '../rules/post-types.ts';
import { checkMediaUrls, refuseDocuments, codePoints, images, videos, violation } from '../rules/rule-helpers.ts';
import { type ContentRules, type ContentViolation } from '../types.ts';

/** docs/networks.md §2.4: 63,206 chars; multi-photo via attached_media; one video, not mixed with photos. */
export const FACEBOOK_LIMITS = { maxText: 63206, maxImages: 10, maxVideos: 1 } as const;

export const FACEBOOK_POST_TYPES = ['feed'] as const;

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
    if (input.text.trim() === '' && input.media.length === 0 && typeof input.options?.link !== 'string')
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
