import { ProviderError } from '../errors/provider-error.ts';
import { type LookupInput, type LookupResult, type Network } from '../types.ts';
import { mediaIdsOf } from './media-handle.ts';

/** Clock skew allowed between us and the network when comparing creation times. */
export const LOOKUP_SKEW_MS = 60_000;
/** Pages read before a lookup gives up as incomplete (an account posting hundreds of times a minute). */
const MAX_PAGES = 20;

export interface Candidate {
  id: string;
  text: string;
  /** Epoch ms. */
  createdAt: number;
  url: string;
  /** The media the post carries (X media ids, LinkedIn asset URNs), where the network lists them. */
  mediaIds?: string[];
  /** The post this one replies to, where the network says (X `referenced_tweets` `replied_to`). */
  inReplyTo?: string | undefined;
}

/**
 * What every network keeps of a text as written: URLs removed (X rewrites them to t.co links),
 * whitespace collapsed, Unicode normalized. The comparison key of a lookup.
 */
export function textFingerprint(text: string): string {
  return text
    .normalize('NFC')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A page of candidates, newest first, and how to get the next (older) one. */
export interface CandidatePage {
  items: Candidate[];
  next: (() => Promise<CandidatePage>) | undefined;
}

/**
 * Reads newest-first pages back to the attempt's start (less skew) and returns the oldest candidate
 * created since then whose text matches and that no other delivery claimed: the attempt's own post.
 * When the attempt's handle names the media it uploaded, a candidate matches only by carrying one of
 * them: media ids are unique to the upload, so this tells the attempt's post from an identical one.
 * A lookup for a reply (`inReplyTo`) takes only candidates answering that post.
 * `absent` only when the read reached past the window's start or the end of the list; a list longer
 * than MAX_PAGES pages is an incomplete read and throws (the caller tries again, then reports unknown).
 */
export async function scanNewestFirst(
  network: Network,
  input: LookupInput,
  first: () => Promise<CandidatePage>,
  sameText: (ours: string, theirs: string) => boolean = (a, b) => a === b,
): Promise<LookupResult> {
  const from = input.since.getTime() - LOOKUP_SKEW_MS;
  const wanted = textFingerprint(input.text);
  const ours = mediaIdsOf(input.handle);
  const matches = (item: Candidate) =>
    (input.inReplyTo === undefined || item.inReplyTo === input.inReplyTo) &&
    (ours === undefined
      ? sameText(wanted, textFingerprint(item.text))
      : (item.mediaIds ?? []).some((id) => ours.includes(id)));
  const excluded = new Set(input.excludeIds);
  let match: Candidate | undefined;
  let page = await first();
  for (let read = 1; ; read += 1) {
    for (const item of page.items) {
      if (item.createdAt < from || excluded.has(item.id)) continue;
      if (matches(item)) match = item;
    }
    const reachedStart = page.items.length === 0 || page.items.some((item) => item.createdAt < from);
    if (reachedStart || page.next === undefined) break;
    if (read >= MAX_PAGES) {
      throw new ProviderError({
        network,
        kind: 'transient',
        networkCode: 'lookup_incomplete',
        networkMessage: `More than ${MAX_PAGES} pages of posts since the attempt began; the lookup stopped before covering it.`,
      });
    }
    page = await page.next();
  }
  return match === undefined
    ? { status: 'absent' }
    : { status: 'found', result: { platformPostId: match.id, url: match.url } };
}
