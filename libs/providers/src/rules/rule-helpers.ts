import { type ContentInput, type ContentViolation, type MediaInput, type Network, networkLabels } from '../types.ts';

export const violation = (rule: string, message: string): ContentViolation => ({ rule, message });

export const images = (media: MediaInput[]) => media.filter((item) => item.kind === 'image');
export const videos = (media: MediaInput[]) => media.filter((item) => item.kind === 'video');
export const documents = (media: MediaInput[]) => media.filter((item) => item.kind === 'document');

/** Documents (PDF) are a LinkedIn post kind only: every other network's rules refuse them by this rule. */
export function refuseDocuments(network: Network, media: MediaInput[]): ContentViolation[] {
  return media.flatMap((item, index) =>
    item.kind === 'document'
      ? [
          violation(
            'document_unsupported',
            `${networkLabels[network]} does not take documents (media ${index + 1} is a PDF); PDFs are posted to LinkedIn with post_type document.`,
          ),
        ]
      : [],
  );
}

/** Characters as people count them (code points), for networks that count that way. */
export const codePoints = (text: string) => [...text].length;

export function countMatches(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

/** A media URL the network can fetch: absolute http(s). Reachability is the network's call. */
export function checkMediaUrls(input: ContentInput): ContentViolation[] {
  return input.media.flatMap((item, index) => {
    try {
      const url = new URL(item.url);
      if (url.protocol === 'http:' || url.protocol === 'https:') return [];
    } catch {
      // falls through to the violation
    }
    return [violation('media_url', `Media ${index + 1} must be an absolute http(s) URL.`)];
  });
}
