import type { RawSql } from '@svc/db';
import type { JobViewRow } from '../domain/post-view.ts';

interface JobRow {
  id: string;
  org_id: string;
  request_id: string | null;
  status: string;
  text: string;
  account_ids: string[];
  providers: string[];
  media_urls: string[];
  scheduled_at: Date | null;
  created_at: Date;
}

interface DeliveryRow {
  position: number;
  account_id: string;
  provider: string;
  status: string;
  platform_post_id: string | null;
  platform_post_url: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  published_at: Date | null;
}

export type FinishedJob = JobViewRow & { orgId: string; requestId: string | null };

/**
 * Gives a job its final status and reads what its event carries, in the caller's transaction, as
 * raw SQL: it runs on the deliveries' own pg connections (docs/performance.md).
 */
export async function markJobFinished(tx: RawSql, jobId: string, status: string): Promise<FinishedJob | undefined> {
  const [job] = await tx.$queryRawUnsafe<JobRow[]>(
    `UPDATE jobs SET status = $2, finished_at = now(), updated_at = now() WHERE id = $1::uuid
      RETURNING id, org_id, request_id, status, text, account_ids, providers, media_urls, scheduled_at, created_at`,
    jobId,
    status,
  );
  if (job === undefined) return undefined;
  const deliveries = await tx.$queryRawUnsafe<DeliveryRow[]>(
    `SELECT position, account_id, provider, status, platform_post_id, platform_post_url, error_code, error_message, attempts, published_at
       FROM deliveries WHERE job_id = $1::uuid`,
    jobId,
  );
  return {
    id: job.id,
    orgId: job.org_id,
    requestId: job.request_id,
    status: job.status,
    text: job.text,
    accountIds: job.account_ids,
    providers: job.providers,
    mediaUrls: job.media_urls,
    scheduledAt: job.scheduled_at,
    createdAt: job.created_at,
    deliveries: deliveries.map((row) => ({
      position: row.position,
      accountId: row.account_id,
      provider: row.provider,
      status: row.status,
      platformPostId: row.platform_post_id,
      platformPostUrl: row.platform_post_url,
      errorCode: row.error_code,
      errorMessage: row.error_message,
      attempts: row.attempts,
      publishedAt: row.published_at,
    })),
  };
}
