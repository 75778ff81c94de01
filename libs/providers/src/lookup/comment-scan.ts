import { ProviderError } from '../errors/provider-error.ts';
import { type CommentLookupResult, type Network } from '../types.ts';
import { textFingerprint } from './scan.ts';

/** Pages of comments read before a lookup gives up as incomplete (a post drawing thousands of comments at once). */
const MAX_PAGES = 20;

export interface CommentCandidate {
  id: string;
  text: string;
  /** Who wrote it, where the listing says (Graph `from.id`, LinkedIn `actor`). */
  author: string | undefined;
}

/** A page of a post's comments, oldest first, and how to get the next one. */
export interface CommentPage {
  items: CommentCandidate[];
  next: (() => Promise<CommentPage>) | undefined;
}

/**
 * Reads a post's comments and returns the first one written by `author` (when the listing names
 * authors) with the same text, not excluded: the uncertain attempt's comment. `absent` only when every
 * page was read; more than MAX_PAGES pages throws, so the caller asks again or reports unknown.
 */
export async function scanComments(
  network: Network,
  wanted: { text: string; author: string | undefined; excludeIds: readonly string[] },
  first: () => Promise<CommentPage>,
): Promise<CommentLookupResult> {
  const text = textFingerprint(wanted.text);
  const excluded = new Set(wanted.excludeIds);
  let page = await first();
  for (let read = 1; ; read += 1) {
    const match = page.items.find(
      (item) =>
        !excluded.has(item.id) &&
        (item.author === undefined || wanted.author === undefined || item.author === wanted.author) &&
        textFingerprint(item.text) === text,
    );
    if (match !== undefined) return { status: 'found', platformCommentId: match.id };
    if (page.next === undefined) return { status: 'absent' };
    if (read >= MAX_PAGES)
      throw new ProviderError({
        network,
        kind: 'transient',
        networkCode: 'lookup_incomplete',
        networkMessage: `More than ${MAX_PAGES} pages of comments; the lookup stopped before reading them all.`,
      });
    page = await page.next();
  }
}
