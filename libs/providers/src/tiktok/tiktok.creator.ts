import { violation } from '../rules/rule-helpers.ts';
import { type AccountExtras, type ContentInput, type ContentViolation } from '../types.ts';

/**
 * What `creator_info/query` says about the creator (content-posting-api-reference-query-creator-info).
 * TikTok's audit requires honouring it: only the offered privacy levels; comments, duets and stitches
 * cannot be switched on where the creator turned them off; no video longer than
 * `max_video_post_duration_sec` (content-sharing-guidelines).
 */
export interface CreatorInfo {
  creator_username?: string;
  privacy_level_options?: string[];
  comment_disabled?: boolean;
  duet_disabled?: boolean;
  stitch_disabled?: boolean;
  max_video_post_duration_sec?: number;
}

/** Kept with the account at connect, so the accept-time check needs no network call. */
export const CREATOR_EXTRA_KEYS = [
  'tt_privacy_level_options',
  'tt_comment_disabled',
  'tt_duet_disabled',
  'tt_stitch_disabled',
  'tt_max_video_post_duration_sec',
] as const;

export function creatorExtras(info: CreatorInfo): Record<string, string> {
  const extras: Record<string, string> = {};
  if (info.privacy_level_options) extras.tt_privacy_level_options = info.privacy_level_options.join(',');
  if (info.comment_disabled !== undefined) extras.tt_comment_disabled = String(info.comment_disabled);
  if (info.duet_disabled !== undefined) extras.tt_duet_disabled = String(info.duet_disabled);
  if (info.stitch_disabled !== undefined) extras.tt_stitch_disabled = String(info.stitch_disabled);
  if (info.max_video_post_duration_sec !== undefined)
    extras.tt_max_video_post_duration_sec = String(info.max_video_post_duration_sec);
  return extras;
}

export function creatorFromExtras(extras: AccountExtras | undefined): CreatorInfo | undefined {
  if (extras?.tt_privacy_level_options === undefined && extras?.tt_max_video_post_duration_sec === undefined)
    return undefined;
  const flag = (value: string | undefined) => (value === undefined ? undefined : value === 'true');
  const max = Number(extras.tt_max_video_post_duration_sec);
  return {
    ...(extras.tt_privacy_level_options ? { privacy_level_options: extras.tt_privacy_level_options.split(',') } : {}),
    ...(flag(extras.tt_comment_disabled) === undefined ? {} : { comment_disabled: flag(extras.tt_comment_disabled)! }),
    ...(flag(extras.tt_duet_disabled) === undefined ? {} : { duet_disabled: flag(extras.tt_duet_disabled)! }),
    ...(flag(extras.tt_stitch_disabled) === undefined ? {} : { stitch_disabled: flag(extras.tt_stitch_disabled)! }),
    ...(Number.isFinite(max) && max > 0 ? { max_video_post_duration_sec: max } : {}),
  };
}

/**
 * The post against what the creator allows. Switching an interaction on that the creator turned off
 * (`disable_comment: false` and the like) is refused; left unset, the adapter turns it off for them.
 */
export function creatorViolations(info: CreatorInfo, input: ContentInput): ContentViolation[] {
  const found: ContentViolation[] = [];
  const privacy = input.options?.privacy_level;
  if (typeof privacy === 'string' && info.privacy_level_options && !info.privacy_level_options.includes(privacy)) {
    found.push(
      violation(
        'privacy_level_option_mismatch',
        `This TikTok creator can post with privacy_level ${info.privacy_level_options.join(', ')} only.`,
      ),
    );
  }
  const video = input.media.find((item) => item.kind === 'video');
  const interactions = [
    ['comment', info.comment_disabled, 'disable_comment'],
    ...(video
      ? ([
          ['duet', info.duet_disabled, 'disable_duet'],
          ['stitch', info.stitch_disabled, 'disable_stitch'],
        ] as const)
      : []),
  ] as const;
  for (const [name, disabled, option] of interactions) {
    if (disabled === true && input.options?.[option] === false) {
      found.push(
        violation(`${name}_disabled`, `This TikTok creator has turned ${name}s off: ${option} cannot be false.`),
      );
    }
  }
  const max = info.max_video_post_duration_sec;
  if (video?.durationMs !== undefined && max !== undefined && video.durationMs > max * 1000) {
    found.push(
      violation(
        'video_duration',
        `This TikTok creator can post videos of at most ${max} s (this one is ${(video.durationMs / 1000).toFixed(1)} s).`,
      ),
    );
  }
  return found;
}
