import { checkAltText } from '../rules/alt-text.ts';
import { postTypeOf } from '../rules/post-types.ts';
import { checkMediaUrls, refuseDocuments, images, videos, violation } from '../rules/rule-helpers.ts';
import { type ContentInput, type ContentRules, type ContentViolation } from '../types.ts';
import { creatorFromExtras, creatorViolations } from './tiktok.creator.ts';

export const TIKTOK_PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const;

/**
 * docs/networks.md §5.4: video title 2,200 UTF-16 units; photo title 90, description 4,000; up to 35
 * photos; one video; media required; `privacy_level` required (one of the creator's options).
 */
export const TIKTOK_LIMITS = {
  maxVideoTitle: 2200,
  maxPhotoTitle: 90,
  maxPhotoDescription: 4000,
  maxPhotos: 35,
} as const;

/**
 * TikTok's kinds (docs/networks.md, "Post kinds"): `video` (one video, direct post), `photo` (1 to 35
 * photos, photo mode, pulled from a verified URL), `draft` (a video or photos sent to the creator's
 * TikTok inbox, `video.upload` scope; the creator finishes and publishes it in the app, so no
 * privacy level is chosen here). Without `post_type` the media decide: a video is `video`, photos
 * are `photo`.
 */
export const TIKTOK_POST_TYPES = ['video', 'photo', 'draft'] as const;

/** The kind a post is published as: the one asked for, else the one its media make. */
export function tiktokPostType(options: Record<string, unknown> | undefined, media: ContentInput['media']) {
  return postTypeOf('tiktok', options, TIKTOK_POST_TYPES, videos(media).length > 0 ? 'video' : 'photo');
}

function kindViolations(postType: string, input: ContentInput): ContentViolation[] {
  if (input.media.length === 0) return [];
  if (postType === 'video' && videos(input.media).length === 0)
    return [violation('media_kind_mismatch', 'A TikTok video post needs a video; send photos with post_type photo.')];
  if (postType === 'photo' && videos(input.media).length > 0)
    return [
      violation('media_kind_mismatch', 'A TikTok photo post holds photos only; send a video with post_type video.'),
    ];
  return [];
}

export const tiktokRules: ContentRules = {
  network: 'tiktok',
  maxTextLength: TIKTOK_LIMITS.maxVideoTitle,
  requiresMedia: true,
  postTypes: TIKTOK_POST_TYPES,
  maxMedia: TIKTOK_LIMITS.maxPhotos,
  maxPerKind: { image: TIKTOK_LIMITS.maxPhotos, video: 1, document: 0 },
  check(input) {
    const found: ContentViolation[] = [];
    const kind = tiktokPostType(input.options, input.media);
    found.push(...kind.violations, ...kindViolations(kind.postType, input));
    const draft = kind.postType === 'draft';
    const imageCount = images(input.media).length;
    const videoCount = videos(input.media).length;
    if (input.media.length === 0)
      found.push(violation('media_required', 'TikTok does not accept text-only posts: add a video or photos.'));
    if (videoCount > 1) found.push(violation('media_count', 'A TikTok post holds one video.'));
    if (videoCount > 0 && imageCount > 0)
      found.push(violation('media_mix', 'A TikTok post cannot mix photos and a video.'));
    if (imageCount > TIKTOK_LIMITS.maxPhotos)
      found.push(violation('media_count', `A TikTok photo post holds at most ${TIKTOK_LIMITS.maxPhotos} photos.`));
    if (videoCount > 0 && input.text.length > TIKTOK_LIMITS.maxVideoTitle)
      found.push(
        violation('text_length', `TikTok video captions are limited to ${TIKTOK_LIMITS.maxVideoTitle} characters.`),
      );
    if (videoCount === 0 && input.text.length > TIKTOK_LIMITS.maxPhotoDescription)
      found.push(
        violation(
          'text_length',
          `TikTok photo descriptions are limited to ${TIKTOK_LIMITS.maxPhotoDescription} characters.`,
        ),
      );
    const title = input.options?.title;
    if (
      title !== undefined &&
      (typeof title !== 'string' || title.length > TIKTOK_LIMITS.maxPhotoTitle) &&
      videoCount === 0
    ) {
      found.push(
        violation('title_length', `TikTok photo titles are limited to ${TIKTOK_LIMITS.maxPhotoTitle} characters.`),
      );
    }
    const privacy = input.options?.privacy_level;
    if (draft) {
      // An inbox draft takes no post settings: the creator chooses them in the app.
      found.push(...checkAltText('tiktok', input.media));
      return found.concat(refuseDocuments('tiktok', input.media), checkMediaUrls(input));
    }
    if (privacy === undefined)
      found.push(
        violation(
          'privacy_level_required',
          `TikTok requires options.privacy_level (one of ${TIKTOK_PRIVACY_LEVELS.join(', ')}).`,
        ),
      );
    else if (!TIKTOK_PRIVACY_LEVELS.includes(privacy as (typeof TIKTOK_PRIVACY_LEVELS)[number])) {
      found.push(
        violation('privacy_level', `TikTok privacy_level must be one of ${TIKTOK_PRIVACY_LEVELS.join(', ')}.`),
      );
    }
    // What the creator allows, as creator_info said when the account was connected (re-checked live at publish).
    const creator = creatorFromExtras(input.account);
    if (creator !== undefined) found.push(...creatorViolations(creator, input));
    found.push(...checkAltText('tiktok', input.media));
    return found.concat(refuseDocuments('tiktok', input.media), checkMediaUrls(input));
  },
};
