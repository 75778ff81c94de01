import { type ContentViolation, type MediaInput, type MediaKind, type Network, networkLabels } from '../types.ts';
import { codePoints, violation } from './rule-helpers.ts';

/**
 * Alt text per network (docs/networks.md, "Alt text"): the longest description each takes, in
 * characters, and the media kinds it describes. X: `media/metadata` `alt_text.text`, 1,000
 * characters, images and GIFs. LinkedIn: `altText` on the image content, 4,086 characters (Posts
 * API schema). Instagram: `alt_text` on image containers only (feed and carousel images, not reels
 * or stories); the Graph reference gives no separate cap, so we hold it to the 1,000 characters
 * Instagram's own editor allows. Facebook: `alt_text_custom` on photos; no published cap, the same
 * 1,000. TikTok's Content Posting API has no alt text.
 */
export const altTextRules: Readonly<Record<Network, { maxLength: number; kinds: readonly MediaKind[] } | undefined>> = {
  instagram: { maxLength: 1000, kinds: ['image'] },
  facebook: { maxLength: 1000, kinds: ['image'] },
  x: { maxLength: 1000, kinds: ['image'] },
  linkedin: { maxLength: 4086, kinds: ['image'] },
  tiktok: undefined,
};

/** Post kinds whose media take no alt text even where the network has it (Instagram reels and stories, Facebook reels). */
const NO_ALT_TEXT_KINDS: Readonly<Partial<Record<Network, readonly string[]>>> = {
  instagram: ['reel', 'story'],
  facebook: ['reel'],
};

/**
 * The alt text of one post's media for one network: a non-empty description where the network (or
 * the post kind, or the medium's kind) takes none is refused rather than dropped, as is one past the
 * network's length. An empty string means "no description" for that item.
 */
export function checkAltText(network: Network, media: readonly MediaInput[], postType?: string): ContentViolation[] {
  const rules = altTextRules[network];
  const label = networkLabels[network];
  const found: ContentViolation[] = [];
  media.forEach((item, index) => {
    const text = item.altText;
    if (text === undefined || text === '') return;
    const position = `media ${index + 1}`;
    if (rules === undefined) {
      found.push(violation('alt_text_unsupported', `${label} posts cannot carry alt text (${position}).`));
      return;
    }
    if (postType !== undefined && NO_ALT_TEXT_KINDS[network]?.includes(postType)) {
      found.push(violation('alt_text_unsupported', `${label} ${postType} posts cannot carry alt text (${position}).`));
      return;
    }
    if (!rules.kinds.includes(item.kind)) {
      found.push(
        violation(
          'alt_text_media_kind',
          `${label} takes alt text on ${rules.kinds.join(' and ')}s only (${position}).`,
        ),
      );
      return;
    }
    const length = codePoints(text);
    if (length > rules.maxLength)
      found.push(
        violation(
          'alt_text_length',
          `${label} alt text is limited to ${rules.maxLength} characters (${position} has ${length}).`,
        ),
      );
  });
  return found;
}
