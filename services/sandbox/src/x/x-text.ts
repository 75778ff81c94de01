/**
 * X's weighted length as the network computes it (twitter-text v3): NFC; URLs 23; Latin ranges 1;
 * everything else 2; an emoji sequence 2. Kept apart from the adapters' copy on purpose: the sandbox
 * is the network's stand-in and must not share the client's code.
 */
const LIGHT: [number, number][] = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

export function weightedLength(text: string): number {
  let rest = text.normalize('NFC');
  let length = 0;
  for (const url of rest.match(/\bhttps?:\/\/\S+/gi) ?? []) {
    rest = rest.replace(url, '');
    length += 23;
  }
  for (const { segment } of segmenter.segment(rest)) {
    if (/\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment)) length += 2;
    else for (const char of segment) length += LIGHT.some(([a, b]) => (char.codePointAt(0) ?? 0) >= a && (char.codePointAt(0) ?? 0) <= b) ? 1 : 2;
  }
  return length;
}
