const RESERVED = /[\\|{}@[\]()<>#*_~]/g;

/**
 * The elements of LinkedIn's little text format that a user writes on purpose and that must reach
 * LinkedIn unescaped (learn.microsoft.com linkedin/marketing/community-management/shares/little-text-format):
 * - a mention `@[Name](urn:li:person:…)` / `@[Name](urn:li:organization:…)` (MentionElement);
 * - a hashtag `#tag` (HashtagElement): `#` at the start of a word, then letters and digits; a `#`
 *   inside a word or URL (`a#b`, `/#frag`) is plain text;
 * - a hashtag template `{hashtag|\#|tag}` (HashtagTemplate), passed through as written.
 */
const ELEMENT =
  /@\[[^\]\\]*\]\(urn:li:[A-Za-z]+:[^)\s\\]+\)|\{hashtag\|\\#\|[\p{L}\p{N}]+\}|(?<![\p{L}\p{N}_/&?=#\\])#[\p{L}\p{N}]+/gu;

/** Escapes every reserved character of plain text: unescaped, LinkedIn cuts the post short there (docs/networks.md §7.5). */
export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (char) => `\\${char}`);
}

/**
 * Post text as little text: hashtags and mentions kept as LinkedIn's elements, every other reserved
 * character escaped. Escaping `#` too (as before) published every hashtag as plain text.
 */
export function toLittleText(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(ELEMENT)) {
    out += escapeLittleText(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + escapeLittleText(text.slice(last));
}
