import { createEnvelope, newId, postQueued, schedulerJobSchedule, type PostViewType } from '@svc/contracts';
import type { Network } from '@svc/providers';
import type { NewJobRow } from '../data/accept.repository.ts';
import { activeTraceCarrier } from '@svc/tracing';
import type { AccountSummary } from './accounts-client.ts';
import type { JobRequest } from './check-job.ts';
import { deliveryRunCommands } from './delivery-run-commands.ts';
import { flatMedia, storedThread } from './thread-request.ts';

/** A checked post ready to store: the accept statement's row and the post as its caller will see it. */
export interface PreparedJob {
  row: NewJobRow;
  /** The new post, once stored at `createdAt`. */
  view: (createdAt: Date) => PostViewType;
}

export interface PrepareJobInput {
  jobId: string;
  /** The post's target accounts, as its check found them (every one of `request.accountIds`). */
  accounts: ReadonlyMap<string, AccountSummary>;
  scheduledAt: Date | null;
  /** The library records of its media (given ids and imported URLs). */
  mediaIds: string[];
}

/**
 * The job, one delivery per account and the outbox messages of its first step (its post.queued and
 * delivery commands, or the scheduler's schedule command), for the accept statement to commit
 * together. Used by a single create and by a bulk alike.
 */
export function prepareJob(
  request: JobRequest,
  { jobId, accounts, scheduledAt, mediaIds }: PrepareJobInput,
  deliveryRunBatches: boolean | undefined,
): PreparedJob {
  const providers: Network[] = [];
  const deliveries = request.accountIds.map((accountId, position) => {
    const provider = accounts.get(accountId)!.provider;
    if (!providers.includes(provider)) providers.push(provider);
    return { id: newId(), accountId, provider, position };
  });
  const context = { orgId: request.orgId, requestId: request.requestId };
  const status = scheduledAt === null ? 'queued' : 'scheduled';
  // A thread keeps its first part's text as the post's (history, search, events) and its parts apart.
  const thread = request.thread === undefined ? null : storedThread(request.thread, mediaIds);
  const text = thread?.[0]?.text ?? request.text ?? '';
  const mediaUrls = request.thread === undefined ? request.mediaUrls : flatMedia(request.thread).mediaUrls;
  const firstComment =
    request.firstComment === undefined
      ? {}
      : {
          first_comment: {
            status: 'pending' as const,
            platform_comment_id: null,
            error_code: null,
            error_message: null,
          },
        };
  const results = deliveries.map((delivery) => ({
    account_id: delivery.accountId,
    provider: delivery.provider,
    status: 'pending' as const,
    platform_post_id: null,
    platform_post_url: null,
    error_code: null,
    error_message: null,
    attempts: 0,
    published_at: null,
    ...firstComment,
    ...(thread === null
      ? {}
      : {
          parts: thread.map((_, index) => ({
            index,
            status: 'pending' as const,
            platform_post_id: null,
            platform_post_url: null,
            error_code: null,
            error_message: null,
          })),
        }),
  }));
  const queued =
    scheduledAt === null
      ? createEnvelope(
          postQueued,
          {
            id: jobId,
            job_id: jobId,
            status,
            account_ids: request.accountIds,
            platforms: providers,
            text,
            scheduled_at: null,
            error_message: null,
            results: results.map(({ attempts: _attempts, ...result }) => result),
          },
          context,
        )
      : null;
  const row: NewJobRow = {
    id: jobId,
    orgId: request.orgId,
    status,
    text,
    mediaUrls,
    mediaIds,
    mediaAltText: request.mediaAltText ?? [],
    options: request.options,
    accountIds: request.accountIds,
    providers,
    scheduledAt,
    requestId: request.requestId,
    firstComment: request.firstComment ?? null,
    thread,
    deliveries,
    queued,
    envelopes:
      scheduledAt === null
        ? []
        : [createEnvelope(schedulerJobSchedule, { job_id: jobId, run_at: scheduledAt.toISOString() }, context)],
    deliveryCommands:
      scheduledAt === null
        ? deliveryRunCommands(
            jobId,
            deliveries.map((delivery) => delivery.id),
            context,
            deliveryRunBatches,
          )
        : [],
    trace: activeTraceCarrier(),
    recurrenceId: request.recurrenceId ?? null,
  };
  return {
    row,
    view: (createdAt) => ({
      id: jobId,
      status,
      text,
      account_ids: request.accountIds,
      providers,
      media_urls: mediaUrls,
      scheduled_at: scheduledAt?.toISOString() ?? null,
      created_at: createdAt.toISOString(),
      results,
      ...(request.recurrenceId === undefined ? {} : { recurrence_id: request.recurrenceId }),
    }),
  };
}
