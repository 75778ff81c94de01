import type { DeliveryStatusType, JobStatusType, PayloadOf, PostViewType, postPublished } from '@svc/contracts';
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
>;
/** What the post's view and its events read of a job (a Prisma job with its deliveries is one). */
export type JobViewRow = Pick<
  JobWithDeliveries,
  'id' | 'status' | 'text' | 'accountIds' | 'providers' | 'mediaUrls' | 'scheduledAt' | 'createdAt'
> & { deliveries: DeliveryViewRow[] };

const byPosition = (a: DeliveryViewRow, b: DeliveryViewRow) => a.position - b.position;

/** The post as API users see it: one result per target account, in request order. */
export function toPostView(job: JobViewRow): PostViewType {
  return {
    id: job.id,
    status: job.status as JobStatusType,
    text: job.text,
    account_ids: job.accountIds,
    providers: job.providers as Network[],
    media_urls: job.mediaUrls,
    scheduled_at: job.scheduledAt?.toISOString() ?? null,
    created_at: job.createdAt.toISOString(),
    results: [...job.deliveries].sort(byPosition).map((delivery) => ({
      account_id: delivery.accountId,
      provider: delivery.provider as Network,
      status: delivery.status as DeliveryStatusType,
      platform_post_id: delivery.platformPostId,
      platform_post_url: delivery.platformPostUrl,
      error_code: delivery.errorCode,
      error_message: delivery.errorMessage,
      attempts: delivery.attempts,
      published_at: delivery.publishedAt?.toISOString() ?? null,
    })),
  };
}

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
    })),
  };
}
