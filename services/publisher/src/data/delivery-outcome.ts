import type { RawSql } from '@svc/db';
import { WAITING } from './org-waiting.ts';

/** A delivery's final outcome, as recorded. */
export type RecordedOutcome =
  | { kind: 'published'; platformPostId: string; url: string | null }
  | { kind: 'failed'; code: string; message: string };

/**
 * Whether attempt `attempt` still owns delivery row `d` for an outcome of kind `kind` (SQL
 * expressions; the single and the grouped statement share the rule): a post is recorded only by the
 * attempt in flight; a failure also by a pending delivery that was never claimed (its account was
 * lost), but never over a post the network already gave.
 */
function owned(kind: string, attempt: string): string {
  return `d.attempts = ${attempt}
          AND (${kind} = 'published' AND d.status = 'in_flight'
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

const MARK_OUTCOME = `UPDATE deliveries d SET ${outcomeColumns('$5::text', '$3::text', '$4::text')} WHERE d.id = $1::uuid AND ${owned('$5::text', '$2::int')}`;

function values(outcome: RecordedOutcome): [string, string | null] {
  return outcome.kind === 'published' ? [outcome.platformPostId, outcome.url] : [outcome.code, outcome.message.slice(0, 2000)];
}

/** Moves the delivery to its outcome if attempt `attempt` still owns it, in the caller's transaction: 1 if it did, 0 if not. */
export function markDeliveryOutcome(tx: RawSql, deliveryId: string, attempt: number, outcome: RecordedOutcome): Promise<number> {
  return tx.$executeRawUnsafe(MARK_OUTCOME, deliveryId, attempt, ...values(outcome), outcome.kind);
}

export interface OutcomeToRecord {
  deliveryId: string;
  attempt: number;
  outcome: RecordedOutcome;
}

export type RecordedUnlessLast = { recorded: false } | { recorded: true; othersWaiting: boolean };

/**
 * The outcomes of deliveries that are not their job's last (most of them) and their counts on the
 * jobs, in one statement for as many deliveries as finish together (`BatchQueue` of `@svc/db`): one
 * round trip and one commit instead of four each (BEGIN, two UPDATEs, COMMIT). Each delivery moves
 * only while its attempt still owns it (`owned`); the deliveries' rows are locked first,
 * in id order, then the jobs', in id order, so two such statements never wait on each other in a
 * cycle. Of a job's deliveries here, as many as keep it short of its targets are written and
 * counted, in arrival order (the job's count is read under its lock); the rest, its last delivery
 * among them, are left to the transaction that finishes jobs (`markDeliveryOutcome`, then
 * `countFinishedDelivery`), as is a delivery its attempt no longer owns. A delivery named twice
 * is written once, for its first item.
 * For each item written it also says whether deliveries of its organization wait for a slot, not
 * woken already (as of the statement's start), so the slot it frees is offered without a probe of
 * its own.
 */
export async function recordOutcomesUnlessLast(db: RawSql, items: readonly OutcomeToRecord[]): Promise<RecordedUnlessLast[]> {
  const column = <T>(pick: (item: OutcomeToRecord) => T) => items.map(pick);
  const rows = await db.$queryRawUnsafe<{ n: number; waiting: boolean }[]>(
    `WITH input AS (
       SELECT DISTINCT ON (id) * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS i(id, attempt, kind, a, b, n)
        ORDER BY id, n),
     own AS MATERIALIZED (
       SELECT d.id, d.job_id, d.org_id, i.n, i.kind, i.a, i.b
         FROM deliveries d JOIN input i ON i.id = d.id
        WHERE ${owned('i.kind', 'i.attempt')}
        ORDER BY d.id
        FOR UPDATE OF d),
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
     SELECT done.n::int AS n, EXISTS (SELECT 1 FROM deliveries WHERE org_id = done.org_id AND ${WAITING}) AS waiting
       FROM done`,
    column((item) => item.deliveryId),
    column((item) => item.attempt),
    column((item) => item.outcome.kind),
    column((item) => values(item.outcome)[0]),
    column((item) => values(item.outcome)[1]),
  );
  const written = new Map(rows.map((row) => [Number(row.n), row.waiting]));
  return items.map((_, index) => {
    const waiting = written.get(index + 1);
    return waiting === undefined ? { recorded: false } : { recorded: true, othersWaiting: waiting };
  });
}
