import type { RawSql } from '@svc/db';
import type { JobViewRow } from '../domain/post-view.ts';

interface Row {
  id: string;
  org_id: string;
  request_id: string | null;
  job_status: string;
  text: string;
  account_ids: string[];
  providers: string[];
  media_urls: string[];
  scheduled_at: Date | null;
  created_at: Date;
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
  first_comment: string | null;
  thread: unknown;
  thread_parts: unknown;
  first_comment_status: string | null;
  first_comment_id: string | null;
  first_comment_error_code: string | null;
  first_comment_error_message: string | null;
}

export type FinishedJob = JobViewRow & { orgId: string; requestId: string | null };

/**
 * Reads what the events of jobs just closed carry (each job with its deliveries), in one statement
 * in the caller's transaction, as raw SQL: it runs on the deliveries' own pg connections
 * (docs/performance.md).
 */
export async function readFinishedJobs(tx: RawSql, jobIds: readonly string[]): Promise<FinishedJob[]> {
  if (jobIds.length === 0) return [];
  const rows = await tx.$queryRawUnsafe<Row[]>(
    `SELECT j.id::text AS id, j.org_id, j.request_id, j.status AS job_status, j.text, j.account_ids, j.providers, j.media_urls, j.scheduled_at, j.created_at,
            j.first_comment, j.thread, d.thread_parts, d.position, d.account_id, d.provider, d.status, d.platform_post_id, d.platform_post_url, d.error_code, d.error_message,
            d.attempts, d.published_at, d.first_comment_status, d.first_comment_id, d.first_comment_error_code, d.first_comment_error_message
       FROM jobs j JOIN deliveries d ON d.job_id = j.id
      WHERE j.id = ANY($1::uuid[])`,
    jobIds,
  );
  const jobs = new Map<string, FinishedJob>();
  for (const row of rows) {
    let job = jobs.get(row.id);
    if (job === undefined) {
      job = {
        id: row.id,
        orgId: row.org_id,
        requestId: row.request_id,
        status: row.job_status,
        text: row.text,
        accountIds: row.account_ids,
        providers: row.providers,
        mediaUrls: row.media_urls,
        scheduledAt: row.scheduled_at,
        createdAt: row.created_at,
        firstComment: row.first_comment,
        thread: row.thread as FinishedJob['thread'],
        deliveries: [],
      };
      jobs.set(row.id, job);
    }
    job.deliveries.push({
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
      firstCommentStatus: row.first_comment_status,
      firstCommentId: row.first_comment_id,
      firstCommentErrorCode: row.first_comment_error_code,
      firstCommentErrorMessage: row.first_comment_error_message,
      threadParts: row.thread_parts as FinishedJob['deliveries'][number]['threadParts'],
    });
  }
  return [...jobs.values()];
}
