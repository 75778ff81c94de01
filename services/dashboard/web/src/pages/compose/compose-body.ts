import type { RequestBody } from '@svc/sdk';
import { recurrenceBody, recurrenceProblems, type RecurrenceForm } from './recurrence.ts';
import { scheduleProblem, wallTimeToUtc } from './schedule-time.ts';
import { threadBody } from './thread.ts';

export type When = 'now' | 'later' | 'queue' | 'repeat';

/** Everything Compose holds, as plain values. */
export interface ComposeForm {
  accountIds: string[];
  /** The networks of the chosen accounts. */
  networks: string[];
  text: string;
  mediaIds: string[];
  /** Alt text by media id; an empty one leaves that item without. */
  altText: Record<string, string>;
  /** Parts added under the text: with any, the post is an X thread. */
  threadParts: string[];
  firstComment: string;
  when: When;
  /** The `YYYY-MM-DDTHH:MM` of "Schedule", in `timeZone`. */
  wall: string;
  recurrence: RecurrenceForm;
  timeZone: string;
  now: Date;
  tiktokPrivacy: string | null;
  /** Post type chosen per network (only where the accounts offer several). */
  postTypes: Record<string, string>;
}

type Body = RequestBody<'createPost'>;

/** Per-network options: TikTok's privacy level and each chosen post type, for the chosen networks only. */
function platformOptions(form: ComposeForm): Body['platform_options'] {
  const options: Record<string, Record<string, unknown>> = {};
  for (const network of form.networks) {
    const entry: Record<string, unknown> = {};
    if (network === 'tiktok' && form.tiktokPrivacy !== null) entry.privacy_level = form.tiktokPrivacy;
    const postType = form.postTypes[network];
    if (postType !== undefined) entry.post_type = postType;
    if (Object.keys(entry).length > 0) options[network] = entry;
  }
  return Object.keys(options).length === 0 ? undefined : (options as Body['platform_options']);
}

/** When the post goes out: a time, the queue's next free slot, or a weekly rule; none is "now". */
function timing(form: ComposeForm): Partial<Body> {
  switch (form.when) {
    case 'now':
      return {};
    case 'later':
      return form.wall !== '' && scheduleProblem(form.wall, form.timeZone, form.now) === null
        ? { scheduled_at: wallTimeToUtc(form.wall, form.timeZone).toISOString() }
        : {};
    case 'queue':
      return { queue: true };
    case 'repeat':
      return Object.keys(recurrenceProblems(form.recurrence)).length === 0
        ? { recurrence: recurrenceBody(form.recurrence, form.timeZone) }
        : {};
  }
}

/**
 * The create body the form stands for. A thread carries the text and media in its parts (the API
 * takes no top-level text, media, alt text or first comment with one); otherwise the alt texts are
 * aligned with `media_ids`, and sent only when one is written.
 */
export function composeBody(form: ComposeForm): Body {
  const thread = form.threadParts.length > 0;
  const alt = form.mediaIds.map((id) => form.altText[id]?.trim() ?? '');
  const options = platformOptions(form);
  return {
    account_ids: form.accountIds,
    ...(thread
      ? { thread: threadBody(form.text, form.mediaIds, form.threadParts) }
      : {
          text: form.text,
          ...(form.mediaIds.length === 0 ? {} : { media_ids: form.mediaIds }),
          ...(alt.some((a) => a !== '') ? { media_alt_text: alt } : {}),
          ...(form.firstComment.trim() === '' ? {} : { first_comment: { text: form.firstComment.trim() } }),
        }),
    ...timing(form),
    ...(options === undefined ? {} : { platform_options: options }),
  };
}
