import type {
  ApprovalViewType,
  DeliveryStatusType,
  FirstCommentStatusType,
  FirstCommentViewType,
  JobStatusType,
  PayloadOf,
  PostViewType,
  ThreadPartViewType,
  postPublished,
} from '@svc/contracts';
import { threadOf } from './thread-request.ts';
import type { Network } from '@svc/providers';
import type { Prisma } from '../generated/prisma/client.ts';

export type JobWithDeliveries = Prisma.JobGetPayload<{ include: { deliveries: true } }>;
export type DeliveryRow = Prisma.DeliveryGetPayload<object>;

/** What the post's view and its events read of a delivery. */
export type DeliveryViewRow = Pick<
  DeliveryRow,
  | 'position'
  | 'accountId'
  | 'provider'
  | 'status'
  | 'platformPostId'
  | 'platformPostUrl'
  | 'errorCode'
  | 'errorMessage'
  | 'attempts'
  | 'publishedAt'
  | 'firstCommentStatus'
  | 'firstCommentId'
  | 'firstCommentErrorCode'
  | 'firstCommentErrorMessage'
  | 'threadParts'
>;
/** What the post's view and its events read of a job (a Prisma job with its deliveries is one). */
export type JobViewRow = Pick<
  JobWithDeliveries,
  | 'id'
  | 'status'
  | 'text'
  | 'accountIds'
  | 'providers'
  | 'mediaUrls'
  | 'scheduledAt'
  | 'createdAt'
  | 'firstComment'
  | 'thread'
> & { deliveries: DeliveryViewRow[]; version?: number; mediaIds?: string[] } & Partial<ApprovalColumns>;

type ApprovalColumns = Pick<
  JobWithDeliveries,
  | 'approvalStatus'
  | 'approvalRequestedAt'
  | 'approvalDecidedAt'
  | 'approvalDecidedVia'
  | 'approvalDecidedBy'
  | 'approvalComment'
>;

const EDITABLE = new Set(['draft', 'failed', 'partial']);

const byPosition = (a: DeliveryViewRow, b: DeliveryViewRow) => a.position - b.position;

/** The parts of a thread target that exist on the network, in order (`deliveries.thread_parts`). */
export function partsDone(value: unknown): { id: string; url: string | null }[] {
  return Array.isArray(value) ? (value as { id: string; url: string | null }[]) : [];
}

/**
 * A thread target's parts, every one in order: those that exist `published` with their ids; once the
 * target failed, the part it failed on with its error, and the later ones (never posted)
 * `thread_interrupted`; otherwise `pending` (or `canceled` with the post).
 */
export function partsOf(job: Pick<JobViewRow, 'thread'>, delivery: DeliveryViewRow): ThreadPartViewType[] | undefined {
  const thread = threadOf(job.thread);
  if (thread === null) return undefined;
  const done = partsDone(delivery.threadParts);
  const part = (index: number, status: ThreadPartViewType['status'], code: string | null, message: string | null) => ({
    index,
    status,
    platform_post_id: null,
    platform_post_url: null,
    error_code: code,
    error_message: message,
  });
  return thread.map((_, index) => {
    const existing = done[index];
    if (existing !== undefined)
      return {
        ...part(index, 'published', null, null),
        platform_post_id: existing.id,
        platform_post_url: existing.url,
      };
    if (delivery.status === 'failed')
      return index === done.length
        ? part(index, 'failed', delivery.errorCode, delivery.errorMessage)
        : part(index, 'failed', 'thread_interrupted', `Not posted: part ${done.length + 1} of the thread failed.`);
    return part(index, delivery.status === 'canceled' ? 'canceled' : 'pending', null, null);
  });
}

/**
 * A target's first comment, when the post asked for one: its recorded outcome once known; until then
 * pending, or what the post's own end means for it (a post that failed or was canceled got none).
 */
export function firstCommentOf(
  job: Pick<JobViewRow, 'firstComment'>,
  delivery: DeliveryViewRow,
): FirstCommentViewType | undefined {
  if (job.firstComment === null) return undefined;
  if (delivery.firstCommentStatus !== null)
    return {
      status: delivery.firstCommentStatus as FirstCommentStatusType,
      platform_comment_id: delivery.firstCommentId,
      error_code: delivery.firstCommentErrorCode,
      error_message: delivery.firstCommentErrorMessage,
    };
  if (delivery.status === 'failed')
    return {
      status: 'failed',
      platform_comment_id: null,
      error_code: 'post_failed',
      error_message: 'The post was not published, so its first comment was not posted.',
    };
  const status = delivery.status === 'canceled' ? 'canceled' : 'pending';
  return { status, platform_comment_id: null, error_code: null, error_message: null };
}

/** The post as API users see it: one result per target account, in request order. */
export function toPostView(job: JobViewRow & { recurrenceId?: string | null }): PostViewType {
  return {
    id: job.id,
    status: job.status as JobStatusType,
    text: job.text,
    account_ids: job.accountIds,
    providers: job.providers as Network[],
    media_urls: job.mediaUrls,
    // What it posts from the library: media_ids as given, then the media imported from media_urls.
    ...optional('media_ids', job.mediaIds !== undefined && job.mediaIds.length > 0 ? job.mediaIds : undefined),
    scheduled_at: job.scheduledAt?.toISOString() ?? null,
    created_at: job.createdAt.toISOString(),
    results: [...job.deliveries].sort(byPosition).map((delivery) => ({
      account_id: delivery.accountId,
      provider: delivery.provider as Network,
      status: delivery.status as DeliveryStatusType,
      // A thread target's post is its first part, once that exists (also when a later part failed).
      platform_post_id: delivery.platformPostId ?? partsDone(delivery.threadParts)[0]?.id ?? null,
      platform_post_url: delivery.platformPostUrl ?? partsDone(delivery.threadParts)[0]?.url ?? null,
      error_code: delivery.errorCode,
      error_message: delivery.errorMessage,
      attempts: delivery.attempts,
      published_at: delivery.publishedAt?.toISOString() ?? null,
      ...optional('first_comment', firstCommentOf(job, delivery)),
      ...optional('parts', partsOf(job, delivery)),
    })),
    // The edit version while the post can be edited (a draft; a failed post's content before a retry).
    ...optional('version', EDITABLE.has(job.status) ? job.version : undefined),
    ...optional('approval', approvalOf(job)),
    ...optional('recurrence_id', job.recurrenceId ?? undefined),
  };
}

/** `{[key]: value}` when there is a value, nothing otherwise (optional fields of views and events). */
const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** One sentence naming every failed target, for `error_message` of post.failed and partial post.published. */
export function failureSummary(deliveries: readonly DeliveryViewRow[]): string | null {
  const failed = [...deliveries].sort(byPosition).filter((delivery) => delivery.status === 'failed');
  if (failed.length === 0) return null;
  return failed
    .map(
      (delivery) =>
        `${delivery.provider} account ${delivery.accountId}: ${delivery.errorMessage ?? delivery.errorCode ?? 'failed'}`,
    )
    .join('; ');
}

/** What webhooks need in both shapes: Shape A (`id`, `account_ids`, `platforms`, `text`, `error_message`), Shape B (`job_id`, `results`). */
export function toEventPayload(job: JobViewRow): PayloadOf<typeof postPublished> {
  const view = toPostView(job);
  return {
    id: view.id,
    job_id: view.id,
    status: view.status,
    account_ids: view.account_ids,
    platforms: view.providers,
    text: view.text,
    scheduled_at: view.scheduled_at,
    error_message: failureSummary(job.deliveries),
    results: view.results.map((result) => ({
      account_id: result.account_id,
      provider: result.provider,
      status: result.status,
      platform_post_id: result.platform_post_id,
      platform_post_url: result.platform_post_url,
      error_code: result.error_code,
      error_message: result.error_message,
      published_at: result.published_at,
      ...optional('first_comment', result.first_comment),
      ...optional('parts', result.parts),
    })),
  };
}

/** The post's `approval`, once asked for. */
export function approvalOf(job: Partial<ApprovalColumns>): ApprovalViewType | undefined {
  if (job.approvalStatus == null || job.approvalRequestedAt == null) return undefined;
  return {
    status: job.approvalStatus as ApprovalViewType['status'],
    requested_at: job.approvalRequestedAt.toISOString(),
    decided_at: job.approvalDecidedAt?.toISOString() ?? null,
    decided_via: (job.approvalDecidedVia ?? null) as ApprovalViewType['decided_via'],
    decided_by: job.approvalDecidedBy ?? null,
    comment: job.approvalComment ?? null,
  };
}
