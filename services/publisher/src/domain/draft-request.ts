import type { PayloadOf, publisherDraftUpdate, publisherJobCreate } from '@svc/contracts';
import { conflict } from '@svc/errors';
import type { JobRequest } from './check-job.ts';

/** A create body as the publisher keeps a draft's: what `publisher.job_create.v1` carries, less its ids. */
export type DraftPayload = Omit<PayloadOf<typeof publisherJobCreate>, 'job_id' | 'draft'>;
export type DraftChanges = PayloadOf<typeof publisherDraftUpdate>['changes'];

/** A create body (one post, a bulk row or a kept draft) as the checks take it. */
export function requestOf(orgId: string, requestId: string | null, post: DraftPayload): JobRequest {
  return {
    orgId,
    requestId,
    accountIds: post.account_ids,
    text: post.text,
    thread: post.thread?.map((part) => ({
      text: part.text,
      mediaUrls: part.media_urls ?? [],
      mediaIds: part.media_ids ?? [],
    })),
    mediaUrls: post.media_urls ?? [],
    mediaIds: post.media_ids ?? [],
    mediaAltText: post.media_alt_text,
    options: post.options ?? {},
    scheduledAt: post.scheduled_at,
    optionsField: post.options_field ?? 'provider_options',
    firstComment: post.first_comment?.text,
    queue: post.queue,
  };
}

/** The draft a `jobs.draft` value holds (written by `draftOf` only). */
export const storedDraft = (value: unknown): DraftPayload => value as DraftPayload;

/**
 * A draft after an edit: each field given replaces the draft's. `text` and `thread` are the two
 * forms of one post, so giving one drops the other (an edit can turn a post into a thread).
 */
export function editedDraft(
  draft: DraftPayload,
  changes: DraftChanges,
  optionsField: string | undefined,
): DraftPayload {
  const edited: DraftPayload = { ...draft };
  if (changes.thread !== undefined) delete edited.text;
  if (changes.text !== undefined) delete edited.thread;
  for (const [key, value] of Object.entries(changes)) if (value !== undefined) Object.assign(edited, { [key]: value });
  if (optionsField !== undefined) edited.options_field = optionsField;
  return edited;
}

/** 409 for an edit made from a version that is no longer the post's. */
export const staleVersion = (jobId: string, version: number) =>
  conflict(
    `The draft ${jobId} was changed since version ${version}; fetch it again and apply your edit to the current version.`,
  );
