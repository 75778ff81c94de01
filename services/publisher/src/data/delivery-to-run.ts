import type { RawSql } from '@svc/db';
import type { DeliveryRow } from '../domain/post-view.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { isUuid } from './jobs.repository.ts';

/** What running a delivery reads of it. */
export type DeliveryToRun = Pick<
  DeliveryRow,
  'id' | 'jobId' | 'orgId' | 'accountId' | 'provider' | 'status' | 'attempts' | 'platformPostId' | 'platformPostUrl'
> & {
  /** The job's targets not finished when this was read (it only falls): 1 means this delivery is its last. */
  unfinishedTargets: number;
};
/** What running a delivery reads of its job. */
export type JobToRun = Pick<
  Prisma.JobGetPayload<object>,
  | 'orgId'
  | 'status'
  | 'requestId'
  | 'text'
  | 'options'
  | 'mediaIds'
  | 'mediaAltText'
  | 'mediaUrls'
  | 'firstComment'
  | 'thread'
>;

interface Row {
  id: string;
  job_id: string;
  org_id: string;
  account_id: string;
  provider: string;
  status: string;
  attempts: number;
  platform_post_id: string | null;
  platform_post_url: string | null;
  unfinished_targets: number;
  job_status: string;
  request_id: string | null;
  text: string;
  options: JobToRun['options'];
  media_ids: string[];
  media_alt_text: string[];
  media_urls: string[];
  first_comment: string | null;
  thread: JobToRun['thread'];
}

export type DeliveryRead = { delivery: DeliveryToRun; job: JobToRun } | undefined;

/**
 * The delivery pool's sessions run every prepared statement on its generic plan. PostgreSQL kept
 * planning the read below afresh on every call: its generic plan assumes 10 ids, so it costs more
 * than a custom plan for the 3 or 4 of a group, and the plan cache never switched, although both
 * plans are the same pkey lookups. The soak planned it 54,013 times in 53,792 calls, 0.57-0.69 ms of
 * PostgreSQL's CPU each, more than the statement's 0.22 ms to run (docs/performance.md, "Prepared
 * statements"). The pool's other statements already ran on generic plans after their first five
 * calls on each connection. A generic plan is made at a statement's first call on a connection and
 * kept for the connection's life (CONNECTION_LIFETIME_S of @svc/db, a minute), whatever the tables
 * hold by then. Made while they are nearly empty (a new deployment, a quiet moment before a burst),
 * scanning a table is the cheapest plan, and the read below then read every delivery and every job
 * on each call for that minute: 900 buffers a call, 9 ms, in the accept benchmark. Every statement
 * of this pool finds its rows through an index by design, so sequential scans are off for it: a plan
 * made on any table size is the index plan (docs/performance.md, "Plans made on empty tables").
 */
export const DELIVERY_SESSION_SETTINGS: Readonly<Record<string, string>> = {
  plan_cache_mode: 'force_generic_plan',
  enable_seqscan: 'off',
};

/**
 * Deliveries and their jobs in one raw statement: the first read of every delivery, for as many
 * deliveries as wait to be read (`BatchQueue` of `@svc/db`). One result per id, in order; undefined
 * for an id that is not a delivery. Two Prisma model reads per delivery cost two round trips and a
 * pass through Prisma's query compiler each (docs/performance.md).
 */
export async function readDeliveriesToRun(db: RawSql, deliveryIds: readonly string[]): Promise<DeliveryRead[]> {
  const ids = deliveryIds.filter(isUuid);
  const rows =
    ids.length === 0
      ? []
      : await db.$queryRawUnsafe<Row[]>(
          `SELECT d.id, d.job_id, d.org_id, d.account_id, d.provider, d.status, d.attempts, d.platform_post_id, d.platform_post_url,
            cardinality(j.account_ids) - j.finished_deliveries AS unfinished_targets,
            j.status AS job_status, j.request_id, j.text, j.options, j.media_ids, j.media_alt_text, j.media_urls, j.first_comment, j.thread
       FROM deliveries d JOIN jobs j ON j.id = d.job_id
      WHERE d.id = ANY($1::uuid[])`,
          ids,
        );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return deliveryIds.map((id) => {
    const row = isUuid(id) ? byId.get(id.toLowerCase()) : undefined;
    if (row === undefined) return undefined;
    return {
      delivery: {
        id: row.id,
        jobId: row.job_id,
        orgId: row.org_id,
        accountId: row.account_id,
        provider: row.provider,
        status: row.status,
        attempts: row.attempts,
        platformPostId: row.platform_post_id,
        platformPostUrl: row.platform_post_url,
        unfinishedTargets: row.unfinished_targets,
      },
      job: {
        orgId: row.org_id,
        status: row.job_status,
        requestId: row.request_id,
        text: row.text,
        options: row.options,
        mediaIds: row.media_ids,
        mediaAltText: row.media_alt_text,
        mediaUrls: row.media_urls,
        firstComment: row.first_comment,
        thread: row.thread,
      },
    };
  });
}
