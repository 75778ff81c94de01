import type { RequestBody, SvcErrorDetail } from '@svc/sdk';

export type ThreadBody = NonNullable<RequestBody<'createPost'>['thread']>;

// An X thread in Compose: the post's own text (with its media) is the first part and the parts
// added under it follow, so a thread is a post with more to say rather than another form.

/** The API's `thread`: the post's text and media first, then each added part's text, in order. */
export function threadBody(text: string, mediaIds: readonly string[], added: readonly string[]): ThreadBody {
  return [
    { text, ...(mediaIds.length === 0 ? {} : { media_ids: [...mediaIds] }) },
    ...added.map((part) => ({ text: part })),
  ];
}

export const removePart = (parts: readonly string[], index: number): string[] => parts.filter((_, i) => i !== index);

export const setPart = (parts: readonly string[], index: number, text: string): string[] =>
  parts.map((part, i) => (i === index ? text : part));

/** The part a problem names by its path (`/body/thread/2/text` is part 2, the first is 0), or null. */
export function partOf(problem: Pick<SvcErrorDetail, 'path'>): number | null {
  const match = /^(?:\/body)?\/thread\/(\d+)(?:\/|$)/.exec(problem.path ?? '');
  return match === null ? null : Number(match[1]);
}

/**
 * The problems of each added part (index 0 is the first added, the thread's part 1), each message
 * once; the first part's problems are the text field's own.
 */
export function problemsOfAddedParts(problems: readonly SvcErrorDetail[]): Map<number, string[]> {
  const byPart = new Map<number, string[]>();
  for (const problem of problems) {
    const part = partOf(problem);
    if (part === null || part === 0) continue;
    const list = byPart.get(part - 1) ?? [];
    if (!list.includes(problem.message)) list.push(problem.message);
    byPart.set(part - 1, list);
  }
  return byPart;
}
