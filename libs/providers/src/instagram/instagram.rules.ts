import { checkMediaUrls, codePoints, countMatches, images, videos, violation } from '../rules/rule-helpers.ts';
import { type ContentRules, type ContentViolation } from '../types.ts';

/** docs/networks.md §1.4: caption 2,200 chars, 30 hashtags, 20 @-tags; media required; carousel 2-10. */
export const INSTAGRAM_LIMITS = { maxText: 2200, maxHashtags: 30, maxMentions: 20, maxCarousel: 10 } as const;

export const instagramRules: ContentRules = {
  network: 'instagram',
  maxTextLength: INSTAGRAM_LIMITS.maxText,
  requiresMedia: true,
  postTypes: ['feed'],
  maxMedia: INSTAGRAM_LIMITS.maxCarousel,
  maxPerKind: { image: INSTAGRAM_LIMITS.maxCarousel, video: INSTAGRAM_LIMITS.maxCarousel },
  check(input) {
    const found: ContentViolation[] = [];
    if (codePoints(input.text) > INSTAGRAM_LIMITS.maxText)
      found.push(violation('text_length', `Instagram captions are limited to ${INSTAGRAM_LIMITS.maxText} characters.`));
    if (countMatches(input.text, /#[\p{L}\p{N}_]+/gu) > INSTAGRAM_LIMITS.maxHashtags)
      found.push(violation('hashtags', `Instagram allows at most ${INSTAGRAM_LIMITS.maxHashtags} hashtags.`));
    if (countMatches(input.text, /@[\w.]+/g) > INSTAGRAM_LIMITS.maxMentions)
      found.push(violation('mentions', `Instagram allows at most ${INSTAGRAM_LIMITS.maxMentions} @-mentions.`));
    if (input.media.length === 0)
      found.push(violation('media_required', 'Instagram does not accept text-only posts: add an image or a video.'));
    if (input.media.length > INSTAGRAM_LIMITS.maxCarousel)
      found.push(
        violation('media_count', `An Instagram carousel holds at most ${INSTAGRAM_LIMITS.maxCarousel} items.`),
      );
    if (images(input.media).length + videos(input.media).length !== input.media.length)
      found.push(violation('media_type', 'Instagram media must be images or videos.'));
    return found.concat(checkMediaUrls(input));
  },
};
