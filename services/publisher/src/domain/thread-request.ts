import type { ErrorDetail } from '@svc/errors';

/** One part of a thread as asked for: its text and its media, like a post of its own. */
export interface ThreadPart {
  text: string;
  mediaUrls: string[];
  mediaIds: string[];
}

/**
 * A thread's media as one list, the way the accept path resolves and imports a post's media (each
 * distinct URL once per job): every part's `media_ids` in part order, then every part's `media_urls`.
 */
export function flatMedia(parts: readonly ThreadPart[]): { mediaIds: string[]; mediaUrls: string[] } {
  return { mediaIds: parts.flatMap((part) => part.mediaIds), mediaUrls: parts.flatMap((part) => part.mediaUrls) };
}

/**
 * Hands the items resolved from `flatMedia` (ids first, then URLs, one item each) back to their parts:
 * each part gets its ids' items then its URLs' items, as a post orders its media.
 */
export function perPart<T>(parts: readonly ThreadPart[], items: readonly T[]): T[][] {
  let idAt = 0;
  let urlAt = parts.reduce((sum, part) => sum + part.mediaIds.length, 0);
  return parts.map((part) => {
    const own = [
      ...items.slice(idAt, idAt + part.mediaIds.length),
      ...items.slice(urlAt, urlAt + part.mediaUrls.length),
    ];
    idAt += part.mediaIds.length;
    urlAt += part.mediaUrls.length;
    return own;
  });
}

/**
 * A problem found in the flattened media (`/body/media_urls/<n>`, `/body/media_ids/<n>`) pointed at the
 * part it came from (`/body/thread/<k>/media_urls/<j>`), so the path names what the caller sent.
 */
export function threadPathOf(parts: readonly ThreadPart[], detail: ErrorDetail): ErrorDetail {
  const match = /^\/body\/(media_urls|media_ids)\/(\d+)$/.exec(detail.path ?? '');
  if (match === null) return detail;
  const field = match[1] as 'media_urls' | 'media_ids';
  let index = Number(match[2]);
  for (const [k, part] of parts.entries()) {
    const count = field === 'media_urls' ? part.mediaUrls.length : part.mediaIds.length;
    if (index < count) return { ...detail, path: `/body/thread/${k}/${field}/${index}` };
    index -= count;
  }
  return detail;
}

/** Problems of the request's shape that only a thread has: one of `text` and `thread`, media in the parts, no first comment. */
export function threadShapeProblems(request: {
  text: string | undefined;
  thread: readonly ThreadPart[] | undefined;
  mediaUrls: readonly string[];
  mediaIds: readonly string[];
  firstComment: string | undefined;
}): ErrorDetail[] {
  if (request.thread === undefined)
    return request.text === undefined
      ? [{ path: '/body/text', message: 'is required (or a thread)', rule: 'text_or_thread' }]
      : [];
  const problems: ErrorDetail[] = [];
  if (request.text !== undefined)
    problems.push({
      path: '/body/thread',
      message: "a post has either text or a thread, not both: the thread carries each part's text",
      rule: 'text_or_thread',
    });
  for (const field of ['media_urls', 'media_ids'] as const)
    if ((field === 'media_urls' ? request.mediaUrls : request.mediaIds).length > 0)
      problems.push({
        path: `/body/${field}`,
        message: "a thread's media go in its parts (`thread[i].media_urls`, `thread[i].media_ids`)",
        rule: 'thread_media',
      });
  if (request.firstComment !== undefined)
    problems.push({
      path: '/body/first_comment',
      message: "a thread's parts already reply to each other: add the comment as its last part",
      rule: 'first_comment_with_thread',
    });
  return problems;
}

/** A thread's part as the job keeps it (`jobs.thread`): its text and its library media, in order. */
export interface StoredThreadPart {
  text: string;
  media_ids: string[];
}

/** The job's record of a thread, its media resolved into library ids (`rowIds` in `flatMedia` order). */
export function storedThread(parts: readonly ThreadPart[], rowIds: readonly string[]): StoredThreadPart[] {
  const media = perPart(parts, rowIds);
  return parts.map((part, k) => ({ text: part.text, media_ids: media[k] ?? [] }));
}

/** `jobs.thread` read back: the parts, or null for a single post. */
export function threadOf(value: unknown): StoredThreadPart[] | null {
  return Array.isArray(value) ? (value as StoredThreadPart[]) : null;
}
