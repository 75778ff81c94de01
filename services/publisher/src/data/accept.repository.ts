import type { Envelope } from '@svc/contracts';
import type { RawSql } from '@svc/db';
import type { TraceCarrier } from '@svc/tracing';
import { carryQueuedEvents, type QueuedEvent } from '../domain/queued-events.ts';
import { WAITING } from './org-waiting.ts';

/** One validated job to store: its row, its deliveries and the outbox messages of its first step. */
export interface NewJobRow {
  id: string;
  orgId: string;
  status: 'queued' | 'scheduled';
  text: string;
  mediaUrls: string[];
  mediaIds: string[];
  /** Aligned with `mediaIds` ("" for an item without one); empty when the request gave none. */
  mediaAltText?: string[];
  options: Record<string, Record<string, unknown>>;
  accountIds: string[];
  providers: string[];
  scheduledAt: Date | null;
  requestId: string | null;
  /** Posted under each target's post once it is published (null: none asked for). */
  firstComment: string | null;
  /** A thread's parts with their library media (null: a single post). */
  thread: { text: string; media_ids: string[] }[] | null;
  deliveries: { id: string; accountId: string; provider: string; position: number }[];
  /**
   * A queued job's post.queued: written, if the job is stored, in its organization's carrier with
   * the others of the batch that are (domain/queued-events.ts).
   */
  queued: QueuedEvent | null;
  /** Written with the job whatever happens (the scheduler's command). */
  envelopes: Envelope[];
  /** The commands that run its deliveries: not written when the job joins its organization's line. */
  deliveryCommands: Envelope[];
  /**
   * The trace context of the request that made the job (absent or null: untraced), stored with its
   * outbox rows: jobs of many requests are stored in one statement, so each carries its own.
   */
  trace?: TraceCarrier | null;
  /** The recurrence the job is an occurrence of (absent or null: a one-off post). */
  recurrenceId?: string | null;
}

/**
 * What became of one job of a batch. `waiting`: its deliveries joined the line of its organization,
 * whose deliveries were waiting for a slot already, without commands. `quota`: the organization's
 * monthly posts were used up before its turn.
 */
export type StoreOutcome =
  { kind: 'stored'; createdAt: Date; waiting: boolean } | { kind: 'quota'; plan: string; used: number; limit: number };

interface OutcomeRow {
  seq: number;
  created_at: Date | null;
  /** Null when the organization had no usage row for this month (seeded, then the job is tried again). */
  granted: number | null;
  after_used: number | null;
  lim: number | null;
  plan: string | null;
  waiting: boolean;
}

// The month of a usage row is the database clock's calendar month in UTC (as in plan-limits.repository.ts).
const PERIOD = "(date_trunc('month', now() AT TIME ZONE 'UTC'))::date";

/**
 * Every job of the batch in ONE statement (one round trip, one commit, one WAL flush): the usage rows
 * of the batch's organizations are locked in org order, each organization gets
 * min(its jobs in the batch, what is left of its month) units, the first that many of its jobs (in
 * batch order) are inserted with their deliveries and outbox rows, and the rest are answered 402.
 *
 * Why one statement: with a transaction of several statements, the usage row stayed locked while the
 * publisher's event loop got round to sending the next one; under load that was tens of ms per job,
 * and one organization's accepts queue on that row (docs/performance.md, "Accept path").
 *
 * Correctness of the count under concurrency (READ COMMITTED): `cur` locks each usage row FOR UPDATE,
 * which waits for a concurrent batch and then reads the row's latest committed version; the UPDATE
 * re-reads that same latest version (EvalPlanQual) and adds the grant computed from it, so two
 * batches racing for the last units cannot both get them. Deliveries reference jobs inserted by a
 * sibling CTE: foreign keys are checked at the end of the statement, when both are in.
 *
 * A queued job of an organization whose deliveries already wait for a slot (DELIVERY_ORG_CONCURRENCY)
 * joins that line: its deliveries are stored waiting, behind the others, and no command is written
 * for them, as a command would only have each claimed, find the organization busy and be set
 * waiting (a message through the outbox, the relay and the broker, a read, a claim and a wake per
 * job: docs/performance.md, "Accepted into the line"). The deliveries that free slots wake them
 * (data/org-waiting.ts); the caller asks for one wake after the commit, for slots freed while this
 * statement ran, and the sweeper's wake pass stays the backstop.
 */
const STORE_SQL = `
WITH req AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
    seq int, id uuid, org_id text, status text, text text, media_urls text[], media_ids text[], media_alt_text text[], options jsonb,
    account_ids text[], providers text[], scheduled_at timestamptz, request_id text, first_comment text, thread jsonb,
    recurrence_id uuid)
),
need AS (SELECT org_id, count(*)::int AS k FROM req GROUP BY org_id),
lines AS (
  -- The newest waiting delivery, read from the end of the index: the wakes take the oldest first,
  -- so the entries their moves leave behind until vacuum are at the front. (An EXISTS would read from
  -- the front: PostgreSQL drops an ORDER BY inside EXISTS.)
  SELECT need.org_id FROM need
  CROSS JOIN LATERAL (SELECT 1 FROM deliveries WHERE deliveries.org_id = need.org_id AND ${WAITING}
                      ORDER BY org_wait_since DESC LIMIT 1) newest
),
cur AS (
  SELECT u.org_id, u.used, COALESCE(l.posts_per_month, $4::int) AS lim, COALESCE(l.plan, 'free') AS plan
  FROM post_usage u LEFT JOIN plan_limits l ON l.org_id = u.org_id
  WHERE u.period = ${PERIOD} AND u.org_id IN (SELECT org_id FROM need)
  ORDER BY u.org_id
  FOR UPDATE OF u
),
grants AS (
  -- $6 (a bulk, stored alone): all of an organization's jobs or none of them.
  SELECT need.org_id, cur.lim, cur.plan, cur.used,
         CASE WHEN $6::boolean AND need.k > cur.lim - cur.used THEN 0
              ELSE GREATEST(0, LEAST(need.k, cur.lim - cur.used)) END AS g
  FROM need JOIN cur ON cur.org_id = need.org_id
),
upd AS (
  UPDATE post_usage u SET used = u.used + grants.g
  FROM grants WHERE u.org_id = grants.org_id AND u.period = ${PERIOD} AND grants.g > 0
  RETURNING u.org_id
),
ok AS (
  SELECT ranked.* FROM (SELECT req.*, row_number() OVER (PARTITION BY req.org_id ORDER BY req.seq) AS nth FROM req) ranked
  JOIN grants ON grants.org_id = ranked.org_id
  WHERE ranked.nth <= grants.g
),
jobs_in AS (
  INSERT INTO jobs (id, org_id, status, text, media_urls, media_ids, media_alt_text, options, account_ids, providers, scheduled_at, request_id, first_comment, thread, recurrence_id, queued_at, updated_at)
  SELECT id, org_id, status, text, media_urls, media_ids, COALESCE(media_alt_text, '{}'), options, account_ids, providers, scheduled_at, request_id, first_comment, thread, recurrence_id,
         CASE WHEN status = 'queued' THEN now() END, now()
  FROM ok
  RETURNING id, created_at
),
deliveries_in AS (
  INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, org_wait_since, updated_at)
  SELECT d.id, d.job_id, ok.org_id, d.account_id, d.provider, d.position, 'pending',
         CASE WHEN ok.status = 'queued' AND ok.org_id IN (SELECT org_id FROM lines) THEN now() END, now()
  FROM jsonb_to_recordset($2::jsonb) AS d(id uuid, job_id uuid, account_id text, provider text, position int)
  JOIN ok ON ok.id = d.job_id
),
outbox_in AS (
  INSERT INTO outbox_messages (id, type, envelope, trace_context)
  SELECT (m.envelope->>'message_id')::uuid, m.envelope->>'type', m.envelope, m.trace
  FROM jsonb_to_recordset($3::jsonb) AS m(job_id uuid, envelope jsonb, runs boolean, trace jsonb)
  JOIN ok ON ok.id = m.job_id
  WHERE NOT (m.runs AND ok.org_id IN (SELECT org_id FROM lines))
  ON CONFLICT (id) DO NOTHING
),
queued_in AS (
  -- Each carrier of post.queued events keeps the events of the jobs stored, in their order, and is
  -- not written when none was (a 402 announces nothing).
  INSERT INTO outbox_messages (id, type, envelope)
  SELECT (c.envelope->>'message_id')::uuid, c.envelope->>'type', jsonb_set(c.envelope, '{payload,events}', stored.events)
  FROM jsonb_array_elements($5::jsonb) AS c(envelope)
  CROSS JOIN LATERAL (
    SELECT jsonb_agg(e.event ORDER BY e.n) AS events
    FROM jsonb_array_elements(c.envelope->'payload'->'events') WITH ORDINALITY AS e(event, n)
    WHERE (e.event->'payload'->>'job_id')::uuid IN (SELECT id FROM ok)
  ) stored
  WHERE stored.events IS NOT NULL
  ON CONFLICT (id) DO NOTHING
)
SELECT req.seq, jobs_in.created_at, grants.g AS granted, grants.used + grants.g AS after_used, grants.lim, grants.plan,
       (req.status = 'queued' AND req.org_id IN (SELECT org_id FROM lines)) AS waiting
FROM req
LEFT JOIN grants ON grants.org_id = req.org_id
LEFT JOIN jobs_in ON jobs_in.id = req.id
ORDER BY req.seq`;

/**
 * The accept pool's planner settings. Its statements find their rows by key (usage and plan rows,
 * the replica's accounts, the organization's waiting deliveries through their own index), never by
 * reading a table. A plan made while a table is empty scans it, and a connection keeps its generic
 * plans for its life (a minute), whatever the table holds by then: the replica's read did, on a new
 * database (services/publisher/test/account-replica.int.test.ts). So sequential scans are off here,
 * as on the delivery pool (data/delivery-to-run.ts).
 */
export const ACCEPT_SESSION_SETTINGS: Readonly<Record<string, string>> = { enable_seqscan: 'off' };

/** The accept path's writes, on a plain pg pool of its own (measured against Prisma in docs/performance.md). */
export class AcceptRepository {
  constructor(
    private readonly sql: RawSql,
    private readonly freePostsPerMonth: number,
  ) {}

  /**
   * Stores the jobs, in order, each counted against its organization's month; one outcome per job.
   * `whole` (a bulk): an organization whose month cannot take all its jobs of the call gets none
   * stored, each answered `quota` with the usage as it stands.
   */
  async store(jobs: readonly NewJobRow[], { whole = false }: { whole?: boolean } = {}): Promise<StoreOutcome[]> {
    const outcomes: (StoreOutcome | undefined)[] = new Array(jobs.length);
    let rows = await this.run(jobs, whole);
    const unseeded = rows.filter((row) => row.granted === null).map((row) => row.seq);
    if (unseeded.length > 0) {
      // The first job of an organization this month: its usage row is created at 0 (no lock held,
      // nothing counted), then those jobs go again. Once a month per organization.
      await this.sql.$executeRawUnsafe(
        `INSERT INTO post_usage (org_id, period, used) SELECT DISTINCT unnest($1::text[]), ${PERIOD}, 0 ON CONFLICT DO NOTHING`,
        [...new Set(unseeded.map((seq) => jobs[seq]!.orgId))],
      );
      const retried = await this.run(
        unseeded.map((seq) => jobs[seq]!),
        whole,
      );
      rows = rows
        .filter((row) => row.granted !== null)
        .concat(retried.map((row) => ({ ...row, seq: unseeded[row.seq]! })));
    }
    for (const row of rows) {
      if (row.created_at !== null)
        outcomes[row.seq] = { kind: 'stored', createdAt: row.created_at, waiting: row.waiting };
      else if (row.granted !== null)
        outcomes[row.seq] = {
          kind: 'quota',
          plan: row.plan ?? 'free',
          used: row.after_used ?? 0,
          limit: row.lim ?? this.freePostsPerMonth,
        };
    }
    return outcomes.map((outcome, seq) => {
      if (outcome === undefined) throw new Error(`the accept batch gave job ${jobs[seq]!.id} no outcome`);
      return outcome;
    });
  }

  private run(jobs: readonly NewJobRow[], whole: boolean): Promise<OutcomeRow[]> {
    const req = jobs.map((job, seq) => ({
      seq,
      id: job.id,
      org_id: job.orgId,
      status: job.status,
      text: job.text,
      media_urls: job.mediaUrls,
      media_ids: job.mediaIds,
      media_alt_text: job.mediaAltText ?? [],
      options: job.options,
      account_ids: job.accountIds,
      providers: job.providers,
      scheduled_at: job.scheduledAt?.toISOString() ?? null,
      request_id: job.requestId,
      first_comment: job.firstComment,
      thread: job.thread,
      recurrence_id: job.recurrenceId ?? null,
    }));
    const deliveries = jobs.flatMap((job) =>
      job.deliveries.map((delivery) => ({
        id: delivery.id,
        job_id: job.id,
        account_id: delivery.accountId,
        provider: delivery.provider,
        position: delivery.position,
      })),
    );
    const messages = jobs.flatMap((job) => [
      ...job.envelopes.map((envelope) => ({ job_id: job.id, envelope, runs: false, trace: job.trace ?? null })),
      ...job.deliveryCommands.map((envelope) => ({ job_id: job.id, envelope, runs: true, trace: job.trace ?? null })),
    ]);
    const carriers = carryQueuedEvents(jobs.flatMap((job) => (job.queued === null ? [] : [job.queued])));
    return this.sql.$queryRawUnsafe<OutcomeRow[]>(
      STORE_SQL,
      JSON.stringify(req),
      JSON.stringify(deliveries),
      JSON.stringify(messages),
      this.freePostsPerMonth,
      JSON.stringify(carriers),
      whole,
    );
  }
}
