import type { Prisma } from '../generated/prisma/client.ts';
import type { JobRequest } from './check-job.ts';
import type { JobWithDeliveries } from './post-view.ts';
import { threadOf } from './thread-request.ts';

/** What each occurrence of a recurrence posts (`recurrences.body`), the first occurrence's media resolved. */
export interface RecurrenceTemplate {
  account_ids: string[];
  /** Each target's network, for recording an occurrence that could not be scheduled. */
  providers: Record<string, string>;
  text: string | null;
  thread: { text: string; media_ids: string[] }[] | null;
  media_ids: string[];
  options: Record<string, Record<string, unknown>>;
  options_field: string;
  first_comment: string | null;
}

/** The body of a recurrence from its first occurrence as stored (library media, not URLs: imported once). */
export function templateOf(job: JobWithDeliveries, request: JobRequest): Prisma.InputJsonValue {
  const thread = threadOf(job.thread);
  const template: RecurrenceTemplate = {
    account_ids: job.accountIds,
    providers: Object.fromEntries(job.deliveries.map((delivery) => [delivery.accountId, delivery.provider])),
    text: thread === null ? job.text : null,
    thread,
    media_ids: thread === null ? job.mediaIds : [],
    options: request.options,
    options_field: request.optionsField,
    first_comment: job.firstComment,
  };
  return template as unknown as Prisma.InputJsonValue;
}

/** The create request of one occurrence. */
export function occurrenceRequest(orgId: string, recurrenceId: string, body: RecurrenceTemplate, at: Date): JobRequest {
  return {
    orgId,
    requestId: null,
    accountIds: body.account_ids,
    text: body.text ?? undefined,
    thread: body.thread?.map((part) => ({ text: part.text, mediaIds: part.media_ids, mediaUrls: [] })),
    mediaUrls: [],
    mediaIds: body.media_ids,
    options: body.options,
    scheduledAt: at.toISOString(),
    optionsField: body.options_field,
    firstComment: body.first_comment ?? undefined,
    recurrenceId,
  };
}
