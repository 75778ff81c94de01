import { checkAltText } from '../rules/alt-text.ts';
import { postTypeOf } from '../rules/post-types.ts';
import { checkMediaUrls, images, videos, violation } from '../rules/rule-helpers.ts';
import { type ContentRules, type ContentViolation } from '../types.ts';

/** docs/networks.md §4.4: commentary 3,000 chars; 1 image or a multi-image post of 2-20; 1 video; no mixing. */
export const LINKEDIN_LIMITS = { maxText: 3000, maxImages: 20, maxVideos: 1 } as const;

export const LINKEDIN_POST_TYPES = ['post'] as const;

export const linkedinRules: ContentRules = {
  network: 'linkedin',
  maxTextLength: LINKEDIN_LIMITS.maxText,
  requiresMedia: false,
  postTypes: LINKEDIN_POST_TYPES,
  maxMedia: LINKEDIN_LIMITS.maxImages,
  maxPerKind: { image: LINKEDIN_LIMITS.maxImages, video: LINKEDIN_LIMITS.maxVideos },
  check(input) {
    const found: ContentViolation[] = [];
    const kind = postTypeOf('linkedin', input.options, LINKEDIN_POST_TYPES, 'post');
    found.push(...kind.violations);
    // LinkedIn counts UTF-16 code units like most Java services.
    if (input.text.length > LINKEDIN_LIMITS.maxText)
      found.push(violation('text_length', `LinkedIn posts are limited to ${LINKEDIN_LIMITS.maxText} characters.`));
    if (input.text.trim() === '' && input.media.length === 0)
      found.push(violation('empty', 'A LinkedIn post needs text or media.'));
    const imageCount = images(input.media).length;
    const videoCount = videos(input.media).length;
    if (imageCount > LINKEDIN_LIMITS.maxImages)
      found.push(violation('media_count', `A LinkedIn post holds at most ${LINKEDIN_LIMITS.maxImages} images.`));
    if (videoCount > LINKEDIN_LIMITS.maxVideos)
      found.push(violation('media_count', 'A LinkedIn post holds at most one video.'));
    if (videoCount > 0 && imageCount > 0)
      found.push(violation('media_mix', 'A LinkedIn post cannot mix images and a video.'));
    found.push(...checkAltText('linkedin', input.media, kind.postType));
    return found.concat(checkMediaUrls(input));
  },
};
