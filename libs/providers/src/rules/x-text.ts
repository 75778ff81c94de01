/**
 * X's weighted length (twitter-text v3, networks.md §3.4): text NFC-normalised; each URL counts 23;
 * code points in the Latin/punctuation ranges weigh 1, everything else (CJK, emoji...) 2; an emoji
 * sequence (ZWJ, skin tones, flags) counts once, as 2.
 */
const URL_PATTERN = /\bhttps?:\/\/[^\s]+/gi;
const URL_WEIGHT = 23;
const LIGHT_RANGES: [number, number][] = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

const weightOf = (codePoint: number) => (LIGHT_RANGES.some(([from, to]) => codePoint >= from && codePoint <= to) ? 1 : 2);

export const X_MAX_WEIGHTED_LENGTH = 280;

export function xWeightedLength(text: string): number {
  const normalized = text.normalize('NFC');
  let length = 0;
  let rest = normalized;
  for (const url of normalized.match(URL_PATTERN) ?? []) {
    length += URL_WEIGHT;
    rest = rest.replace(url, ' ');
    length -= 1;
  }
  for (const { segment } of segmenter.segment(rest)) {
    if (EMOJI.test(segment)) {
      length += 2;
      continue;
    }
    for (const char of segment) length += weightOf(char.codePointAt(0) ?? 0);
  }
  return length;
}
