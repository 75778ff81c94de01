import { creatorFromExtras } from '../tiktok/tiktok.creator.ts';
import { type AccountExtras, type MediaKind, type Network } from '../types.ts';
import { altTextRules } from './alt-text.ts';
import { contentRules } from './content-rules.ts';
import { postKinds, type PostKindShape } from './post-kinds.ts';
import { postFeatures } from './post-features.ts';
import { xTextLimit } from './x-text.ts';

export interface ContentCapabilities {
  postTypes: readonly string[];
  maxTextLength: number;
  maxMedia: number;
  maxPerKind: Readonly<Record<MediaKind, number>>;
  /** Whether a post can be a thread (X), and whether it can get a first comment. */
  threads: boolean;
  firstComment: boolean;
  /** Alt text per medium: its longest length and the media kinds it describes; undefined where the network has none. */
  altText: { maxLength: number; kinds: readonly MediaKind[] } | undefined;
  /** Each post type's media shape (`post_type_rules`). */
  postKinds: Readonly<Record<string, PostKindShape>>;
  /** A limit of this account tighter than the network's (TikTok creator_info), in seconds. */
  maxVideoSeconds?: number;
}

/**
 * What one account may post, read from the same rule tables `checkContent` applies and the account's
 * rule extras (X Premium's longer posts; TikTok's creator maximum video length as of connect).
 */
export function contentCapabilities(network: Network, account: AccountExtras | undefined): ContentCapabilities {
  const rules = contentRules[network];
  const base = {
    postTypes: rules.postTypes,
    maxTextLength: rules.maxTextLength,
    maxMedia: rules.maxMedia,
    maxPerKind: rules.maxPerKind,
    threads: postFeatures[network].threads,
    firstComment: postFeatures[network].firstComment,
    altText: altTextRules[network],
    postKinds: postKinds[network],
  };
  if (network === 'x') return { ...base, maxTextLength: xTextLimit(account) };
  if (network === 'tiktok') {
    // maxTextLength stays a video caption's: the limit every TikTok post meets (a photo
    // description may run to 4,000 characters).
    const creator = creatorFromExtras(account);
    return {
      ...base,
      ...(creator?.max_video_post_duration_sec === undefined
        ? {}
        : { maxVideoSeconds: creator.max_video_post_duration_sec }),
    };
  }
  return base;
}
