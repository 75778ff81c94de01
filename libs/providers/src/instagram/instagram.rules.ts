import { checkAltText } from '../rules/alt-text.ts';
import { durationViolation, postTypeOf } from '../rules/post-types.ts';
import {
  checkMediaUrls,
  refuseDocuments,
  codePoints,
  countMatches,
  images,
  videos,
  violation,
} from '../rules/rule-helpers.ts';
import { type ContentInput, type ContentRules, type ContentViolation } from '../types.ts';

/** docs/networks.md §1.4: caption 2,200 chars, 30 hashtags, 20 @-tags; media required; carousel 2-10. */
export const INSTAGRAM_LIMITS = { maxText: 2200, maxHashtags: 30, maxMentions: 20, maxCarousel: 10 } as const;

/**
 * Instagram's kinds (docs/networks.md, "Post kinds"): `feed` (an image, a video published as a reel
 * shared to the feed, or a carousel), `reel` (one video, `media_type=REELS`, 3 s to 15 min),
 * `story` (one image or one video of at most 60 s, `media_type=STORIES`; a story has no caption).
 */
export const INSTAGRAM_POST_TYPES = ['feed', 'reel', 'story'] as const;
export const INSTAGRAM_KIND_LIMITS = {
  reel: { minSeconds: 3, maxSeconds: 900 },
  story: { maxSeconds: 60 },
} as const;

function kindViolations(postType: string, input: ContentInput): ContentViolation[] {
  const [first] = input.media;
  if (postType === 'reel') {
    if (input.media.length !== 1 || first?.kind !== 'video')
      return [violation('media_kind_mismatch', 'An Instagram reel is exactly one video.')];
    return durationViolation('reel_duration', 'An Instagram reel', first.durationMs, INSTAGRAM_KIND_LIMITS.reel);
  }
  if (postType === 'story') {
    if (input.media.length !== 1)
      return [violation('media_count', 'An Instagram story is exactly one image or one video.')];
    return first?.kind === 'video'
      ? durationViolation('story_duration', 'An Instagram story video', first.durationMs, INSTAGRAM_KIND_LIMITS.story)
      : [];
  }
  return [];
}

export const instagramRules: ContentRules = {
  network: 'instagram',
  maxTextLength: INSTAGRAM_LIMITS.maxText,
  requiresMedia: true,
  postTypes: INSTAGRAM_POST_TYPES,
  maxMedia: INSTAGRAM_LIMITS.maxCarousel,
  maxPerKind: { image: INSTAGRAM_LIMITS.maxCarousel, video: INSTAGRAM_LIMITS.maxCarousel, document: 0 },
  check(input) {
    const found: ContentViolation[] = [];
    const kind = postTypeOf('instagram', input.options, INSTAGRAM_POST_TYPES, 'feed');
    found.push(...kind.violations);
    if (codePoints(input.text) > INSTAGRAM_LIMITS.maxText)
      found.push(violation('text_length', `Instagram captions are limited to ${INSTAGRAM_LIMITS.maxText} characters.`));
    if (countMatches(input.text, /#[\p{L}\p{N}_]+/gu) > INSTAGRAM_LIMITS.maxHashtags)
      found.push(violation('hashtags', `Instagram allows at most ${INSTAGRAM_LIMITS.maxHashtags} hashtags.`));
    if (countMatches(input.text, /@[\w.]+/g) > INSTAGRAM_LIMITS.maxMentions)
      found.push(violation('mentions', `Instagram allows at most ${INSTAGRAM_LIMITS.maxMentions} @-mentions.`));
    if (input.media.length === 0)
      found.push(violation('media_required', 'Instagram does not accept text-only posts: add an image or a video.'));
    else found.push(...kindViolations(kind.postType, input));
    if (input.media.length > INSTAGRAM_LIMITS.maxCarousel)
      found.push(
        violation('media_count', `An Instagram carousel holds at most ${INSTAGRAM_LIMITS.maxCarousel} items.`),
      );
    if (images(input.media).length + videos(input.media).length !== input.media.length)
      found.push(violation('media_type', 'Instagram media must be images or videos.'));
    found.push(...checkAltText('instagram', input.media, kind.postType));
    return found.concat(refuseDocuments('instagram', input.media), checkMediaUrls(input));
  },
};
