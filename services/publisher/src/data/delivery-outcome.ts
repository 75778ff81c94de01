import type { RawSql } from '@svc/db';
import { WAITING } from './org-waiting.ts';

/** A delivery's final outcome, as recorded. */
export type RecordedOutcome =
  { kind: 'published'; platformPostId: string; url: string | null } | { kind: 'failed'; code: string; message: string };

/**
 * Whether attempt `attempt` still owns delivery row `d` for an outcome of kind `kind` (SQL
 * expressions; both grouped statements share the rule): a post is recorded only by the
 * attempt in flight, or for a pending delivery whose post was recorded already (before a first
 * comment that can no longer be made: its account was lost); a failure also by a pending delivery
 * that was never claimed (its account was lost), but never over a post the network already gave.
 */
function owned(kind: string, attempt: string, postId: string): string {
  return `d.attempts = ${attempt}
          AND (${kind} = 'published' AND (d.status = 'in_flight' OR d.status = 'pending' AND d.platform_post_id = ${postId})
               OR ${kind} = 'failed' AND d.status IN ('in_flight', 'pending') AND d.platform_post_id IS NULL)`;
}

/** What an outcome of kind `kind` sets; `a` and `b` are the post's id and URL, or the error's code and message. */
function outcomeColumns(kind: string, a: string, b: string): string {
  return `status = ${kind}, error_code = CASE WHEN ${kind} = 'failed' THEN ${a} END,
          error_message = CASE WHEN ${kind} = 'failed' THEN ${b} END,
          platform_post_id = CASE WHEN ${kind} = 'published' THEN ${a} ELSE d.platform_post_id END,
          platform_post_url = CASE WHEN ${kind} = 'published' THEN ${b} ELSE d.platform_post_url END,
          published_at = CASE WHEN ${kind} = 'published' THEN now() ELSE d.published_at END,
          lease_until = NULL, reconcile_since = NULL, finished_at = now(), updated_at = now()`;
}

function values(outcome: RecordedOutcome): [string, string | null] {
  return outcome.kind === 'published'
    ? [outcome.platformPostId, outcome.url]
    : [outcome.code, outcome.message.slice(0, 2000)];
}

/** The items' columns, as the grouped statements take them ($1 to $5). */
function columns(items: readonly OutcomeToRecord[]): unknown[] {
  return [
    items.map((item) => item.deliveryId),
    items.map((item) => item.attempt),
    items.map((item) => item.outcome.kind),
    items.map((item) => values(item.outcome)[0]),
    items.map((item) => values(item.outcome)[1]),
  ];
}

/** The items, one row each, a delivery named twice kept for its first item only. */
const INPUT = `input AS (
       SELECT DISTINCT ON (id) * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS i(id, attempt, kind, a, b, n)
        ORDER BY id, n)`;

/** The items' deliveries that their attempts still own, locked in id order (`own`). */
const OWN = `own AS MATERIALIZED (
       SELECT d.id, d.job_id, d.org_id, i.n, i.kind, i.a, i.b
         FROM deliveries d JOIN input i ON i.id = d.id
        WHERE ${owned('i.kind', 'i.attempt', 'i.a')}
        ORDER BY d.id
        FOR UPDATE OF d)`;

export interface OutcomeToRecord {
  deliveryId: string;
  attempt: number;
  outcome: RecordedOutcome;
}

/** What became of one outcome: written (and whether its organization has deliveries waiting for a slot), or left alone. */
export type OutcomeRecorded = { recorded: false } | { recorded: true; othersWaiting: boolean };

/** Whether a delivery written here leaves deliveries of its organization waiting for a slot, not woken already (as of the statement's start). */
const OTHERS_WAITING = `EXISTS (SELECT 1 FROM deliveries WHERE org_id = done.org_id AND ${WAITING}) AS waiting`;

/** Each item's result, in order, from the rows (`n`, `waiting`) of the deliveries written. */
function resultsOf(
  items: readonly OutcomeToRecord[],
  rows: readonly { n: number; waiting: boolean }[],
): OutcomeRecorded[] {
  const written = new Map(rows.map((row) => [Number(row.n), row.waiting]));
  return items.map((_, index) => {
    const waiting = written.get(index + 1);
    return waiting === undefined ? { recorded: false } : { recorded: true, othersWaiting: waiting };
  });
}

/**
 * The outcomes of deliveries that are not their job's last (most of them) and their counts on the
 * jobs, in one statement for as many deliveries as finish together (`BatchQueue` of `@svc/db`): one
 * round trip and one commit instead of four each (BEGIN, two UPDATEs, COMMIT). Each delivery moves
 * only while its attempt still owns it (`owned`); the deliveries' rows are locked first,
 * in id order, then the jobs', in id order, so two such statements never wait on each other in a
 * cycle. Of a job's deliveries here, as many as keep it short of its targets are written and
 * counted, in arrival order (the job's count is read under its lock); the rest, its last delivery
 * among them, are left to the statement that closes jobs (`recordOutcomesClosingJobs`), as is a
 * delivery its attempt no longer owns. A delivery named twice is written once, for its first item.
 * For each item written it also says whether deliveries of its organization wait for a slot, not
 * woken already (as of the statement's start), so the slot it frees is offered without a probe of
 * its own.
 */
export async function recordOutcomesUnlessLast(
  db: RawSql,
  items: readonly OutcomeToRecord[],
): Promise<OutcomeRecorded[]> {
  const rows = await db.$queryRawUnsafe<{ n: number; waiting: boolean }[]>(
    `WITH ${INPUT},
     ${OWN},
     job_locks AS MATERIALIZED (
       SELECT j.id, cardinality(j.account_ids) - j.finished_deliveries - 1 AS room
         FROM jobs j WHERE j.id IN (SELECT job_id FROM own) ORDER BY j.id FOR UPDATE),
     fits AS MATERIALIZED (
       SELECT o.* FROM (SELECT own.*, row_number() OVER (PARTITION BY job_id ORDER BY n) AS r FROM own) o
         JOIN job_locks l ON l.id = o.job_id
        WHERE o.r <= l.room),
     per_job AS (
       SELECT job_id, count(*)::int AS finished, count(*) FILTER (WHERE kind = 'published')::int AS published FROM fits GROUP BY job_id),
     counted AS (
       UPDATE jobs j SET finished_deliveries = j.finished_deliveries + p.finished,
              published_deliveries = j.published_deliveries + p.published, updated_at = now()
         FROM per_job p
        WHERE j.id = p.job_id AND j.finished_deliveries + p.finished < cardinality(j.account_ids)
        RETURNING j.id),
     done AS (
       UPDATE deliveries d
          SET ${outcomeColumns('o.kind', 'o.a', 'o.b')}
         FROM fits o
        WHERE d.id = o.id AND o.job_id IN (SELECT id FROM counted)
        RETURNING o.n, o.org_id)
     SELECT done.n::int AS n, ${OTHERS_WAITING} FROM done`,
    ...columns(items),
  );
  return resultsOf(items, rows);
}

export interface OutcomesClosingJobs {
  results: OutcomeRecorded[];
  /** The jobs whose last delivery was written here, now `published`, `partial` or `failed`: each is announced by the caller's transaction. */
  closedJobIds: string[];
}

/**
 * The outcomes of any deliveries, a job's last among them, in one statement, in the caller's
 * transaction (which announces the jobs it closes: domain/finish-job.ts). Each delivery owned by its
 * attempt is written and counted on its job; a job whose count reaches its targets gets its final
 * status (docs/api-conventions.md, "Publishing model and statuses": published, every target;
 * partial, some; failed, none), unless it had left `queued` and `processing` already. Locks as
 * `recordOutcomesUnlessLast` takes them, deliveries then jobs, each in id order. A job of one target
 * closes with its only delivery: this statement and its announcement are the whole of its outcome,
 * where a transaction per job sent nine statements (docs/performance.md, "A job's last delivery in a
 * group").
 */
export async function recordOutcomesClosingJobs(
  tx: RawSql,
  items: readonly OutcomeToRecord[],
): Promise<OutcomesClosingJobs> {
  const rows = await tx.$queryRawUnsafe<{ n: number; waiting: boolean; closed: string[] }[]>(
    `WITH ${INPUT},
     ${OWN},
     job_locks AS MATERIALIZED (
       SELECT j.id, j.status, j.finished_deliveries, j.published_deliveries, cardinality(j.account_ids) AS total
         FROM jobs j WHERE j.id IN (SELECT job_id FROM own) ORDER BY j.id FOR UPDATE),
     per_job AS (
       SELECT job_id, count(*)::int AS finished, count(*) FILTER (WHERE kind = 'published')::int AS published FROM own GROUP BY job_id),
     next AS (
       SELECT l.id, l.finished_deliveries + p.finished AS finished, l.published_deliveries + p.published AS published, l.total,
              l.finished_deliveries + p.finished >= l.total AND l.status IN ('queued', 'processing') AS closes
         FROM job_locks l JOIN per_job p ON p.job_id = l.id),
     counted AS (
       UPDATE jobs j SET finished_deliveries = x.finished, published_deliveries = x.published, updated_at = now(),
              status = CASE WHEN NOT x.closes THEN j.status WHEN x.published >= x.total THEN 'published' WHEN x.published > 0 THEN 'partial' ELSE 'failed' END,
              finished_at = CASE WHEN x.closes THEN now() ELSE j.finished_at END
         FROM next x
        WHERE j.id = x.id
        RETURNING j.id, x.closes),
     done AS (
       UPDATE deliveries d
          SET ${outcomeColumns('o.kind', 'o.a', 'o.b')}
         FROM own o
        WHERE d.id = o.id
        RETURNING o.n, o.org_id)
     SELECT done.n::int AS n, ${OTHERS_WAITING}, ARRAY(SELECT id::text FROM counted WHERE closes) AS closed FROM done`,
    ...columns(items),
  );
  return { results: resultsOf(items, rows), closedJobIds: rows[0]?.closed ?? [] };
}
