// history: what the publisher's hot statements cost beside a small and beside a large history of
// finished jobs, in the same run (no decay with use). The soak shows the rate over 30
// minutes; this shows what a year of history would do to each statement: the buffers (8 kB pages)
// each one touches, which do not drift with the machine's speed the way a rate does.
//
// One database with the publisher's schema. One organization has 100 open jobs of `accounts`
// deliveries each (a few in flight, some waiting for a slot, the rest pending) and a history of
// finished jobs, all published. Every operation of the delivery path runs through the publisher's
// own functions, each statement under EXPLAIN (ANALYZE, BUFFERS) in a transaction that is rolled
// back, so every sample sees the same rows. Then the history grows and the same samples run again.
import path from 'node:path';
import type { RawSql, TransactionalClient } from '@svc/db';
import { createLogger } from '@svc/logger';
import { createTestDatabase } from '@svc/testing';
import pg from 'pg';
import { claimDeliveries } from '../../services/publisher/src/data/delivery-claim.ts';
import {
  recordOutcomesClosingJobs,
  recordOutcomesUnlessLast,
} from '../../services/publisher/src/data/delivery-outcome.ts';
import { readDeliveriesToRun } from '../../services/publisher/src/data/delivery-to-run.ts';
import { readFinishedJobs } from '../../services/publisher/src/data/finished-job.ts';
import {
  hasWaitingDeliveries,
  wakeWaitingDeliveries,
  wakeWaitingEverywhere,
} from '../../services/publisher/src/data/org-waiting.ts';
import { dispatchOverdueScheduled } from '../../services/publisher/src/domain/dispatch-overdue.ts';
import { InFlightSweeper } from '../../services/publisher/src/domain/in-flight-sweeper.ts';
import { requeueStalePending } from '../../services/publisher/src/domain/requeue-deliveries.ts';
import type { PrismaClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { percentile, type BenchFigure, type BenchResult } from '../support/results.ts';

export interface HistoryBenchOptions {
  /** Finished jobs beside the open ones in the baseline, then in the measured run. */
  smallJobs: number;
  largeJobs: number;
  /** Deliveries per job. */
  accounts: number;
  /** Samples of each operation per history size. */
  samples: number;
}

const ORG = 'org_history_bench';
const OPEN_JOBS = 100;
const ORG_LIMIT = 5;
const LEASE_MS = 60_000;
const BATCH = 10;
const INSERT_CHUNK = 20_000;

/** A statement as PostgreSQL ran it, or an operation's statements together: the pages touched, the execution time, and what was scanned. */
interface Explained {
  buffers: number;
  ms: number;
  scans: string[];
}

/**
 * A RawSql that runs every statement under EXPLAIN (ANALYZE, BUFFERS) on one connection and returns
 * no rows: the functions under test send their real SQL with their real parameters, and the
 * measurement is what PostgreSQL did for it. Buffers are the plan root's shared hits and reads.
 * A function that acts on what a statement returned sees nothing: the sweep finds no organization
 * to wake, so the wake of one is measured as an operation of its own.
 */
class ExplainingSql implements TransactionalClient {
  statements: Explained[] = [];

  constructor(private readonly client: pg.Client) {}

  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    await this.explain(query, values);
    return [] as T;
  }

  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    await this.explain(query, values);
    return 0;
  }

  $transaction<R>(fn: (tx: RawSql) => Promise<R>): Promise<R> {
    return fn(this);
  }

  private async explain(query: string, values: unknown[]): Promise<void> {
    // A statement that only signals (pg_notify) has nothing to explain that history could change.
    if (/^\s*SELECT pg_notify/.test(query)) return;
    const { rows } = await this.client.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query}`,
      values,
    );
    const [{ Plan: plan, 'Execution Time': ms }] = rows[0]!['QUERY PLAN'];
    this.statements.push({ buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], ms, scans: scansOf(plan) });
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** The indexes a plan reads, and the tables it scans whole (`seq <table>`). */
function scansOf(node: PlanNode): string[] {
  const own = node['Index Name'] ?? (node['Node Type'] === 'Seq Scan' ? `seq ${node['Relation Name']}` : undefined);
  return [...(own === undefined ? [] : [own]), ...(node.Plans ?? []).flatMap(scansOf)];
}

interface OpenState {
  /** Pending deliveries not waiting, in flight ones (with their attempt), and a job to finish. */
  pending: string[];
  inFlight: { id: string; attempt: number }[];
  jobId: string;
}

/** An operation of the delivery path, run through the publisher's own function against `sql`. */
type Operation = [name: string, run: (sql: ExplainingSql, state: OpenState) => Promise<unknown>];

const logger = createLogger({ service: 'bench', level: 'silent' });

const OPERATIONS: Operation[] = [
  [
    'grouped read of 10 deliveries and their jobs',
    (sql, state) => readDeliveriesToRun(sql, state.pending.slice(0, BATCH)),
  ],
  [
    'claim of 10 deliveries (organization limit)',
    (sql, state) =>
      claimDeliveries(
        sql,
        state.pending.slice(0, BATCH).map((id) => ({ id, orgId: ORG })),
        LEASE_MS,
        ORG_LIMIT,
      ),
  ],
  [
    "outcome of 5 deliveries, none its job's last",
    (sql, state) =>
      recordOutcomesUnlessLast(
        sql,
        state.inFlight.map(({ id, attempt }) => ({
          deliveryId: id,
          attempt,
          outcome: { kind: 'published', platformPostId: `p-${id}`, url: null },
        })),
      ),
  ],
  ['probe: anyone waiting for a slot', (sql) => hasWaitingDeliveries(sql, ORG)],
  ['wake of the next waiting delivery', (sql) => wakeWaitingDeliveries(sql, ORG, ORG_LIMIT, 1, LEASE_MS)],
  [
    'outcome of 5 deliveries by the statement that closes jobs',
    (sql, state) =>
      recordOutcomesClosingJobs(
        sql,
        state.inFlight.map(({ id, attempt }) => ({
          deliveryId: id,
          attempt,
          outcome: { kind: 'published', platformPostId: `p-${id}`, url: null },
        })),
      ),
  ],
  ["job closed: its event's read (the job and its deliveries)", (sql, state) => readFinishedJobs(sql, [state.jobId])],
  [
    'sweep (expired leases, stale pending, overdue scheduled, wake everywhere)',
    (sql) => {
      const db = sql as unknown as PrismaClient;
      return new InFlightSweeper({
        db,
        logger,
        intervalMs: 5000,
        resolve: async () => undefined,
        requeueStale: () => requeueStalePending(db, 300_000, () => undefined),
        dispatchOverdue: () => dispatchOverdueScheduled({ db, wake: () => undefined }, 600_000),
        wakeWaiting: async () => (await wakeWaitingEverywhere(sql, ORG_LIMIT, LEASE_MS)).length,
      }).sweep();
    },
  ],
];

/** Finished, published jobs of ORG with their deliveries, `jobs` more of them, in chunks. */
async function addHistory(client: pg.Client, jobs: number, accounts: string[]): Promise<void> {
  for (let done = 0; done < jobs; done += INSERT_CHUNK) {
    await client.query(
      `WITH j AS (
         INSERT INTO jobs (id, org_id, status, text, account_ids, providers, finished_deliveries, published_deliveries, queued_at, started_at, finished_at, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'published', 'history #' || (i + $4::int), $2::text[], ARRAY['x'], cardinality($2::text[]), cardinality($2::text[]), t, t, t, t, t
           FROM generate_series(1, $3::int) AS i, LATERAL (SELECT now() - interval '20 days' + (i + $4::int) * interval '1 millisecond' AS t) AS at
         RETURNING id, org_id, finished_at)
       INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, attempts, platform_post_id, published_at, finished_at, created_at, updated_at)
       SELECT gen_random_uuid(), j.id, j.org_id, a.account, 'x', a.n - 1, 'published', 1, 'post-' || gen_random_uuid(), j.finished_at, j.finished_at, j.finished_at, j.finished_at
         FROM j CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS a(account, n)`,
      [ORG, accounts, Math.min(INSERT_CHUNK, jobs - done), done],
    );
  }
}

/**
 * The open jobs: per job, deliveries in flight on a live lease (ORG_LIMIT of them across the
 * organization), others waiting for a slot, the rest pending with a command on its way.
 */
async function addOpenJobs(client: pg.Client, accounts: string[]): Promise<OpenState> {
  await client.query(
    `WITH j AS (
       INSERT INTO jobs (id, org_id, status, text, account_ids, providers, finished_deliveries, queued_at, started_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'processing', 'open #' || i, $2::text[], ARRAY['x'], 0, now(), now(), now(), now()
         FROM generate_series(1, $3::int) AS i
       RETURNING id, org_id)
     INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, updated_at)
     SELECT gen_random_uuid(), j.id, j.org_id, a.account, 'x', a.n - 1, 'pending', now() FROM j CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS a(account, n)`,
    [ORG, accounts, OPEN_JOBS],
  );
  const inFlight = await client.query<{ id: string }>(
    `UPDATE deliveries SET status = 'in_flight', attempts = 1, lease_until = now() + interval '1 hour', attempt_started_at = now()
      WHERE id IN (SELECT id FROM deliveries WHERE org_id = $1 AND status = 'pending' ORDER BY id LIMIT $2) RETURNING id::text AS id`,
    [ORG, ORG_LIMIT],
  );
  // Half of the rest wait for a slot, as in the soak, where nearly every delivery waits once.
  await client.query(
    `UPDATE deliveries SET org_wait_since = now() - (random() * interval '1 second')
      WHERE id IN (SELECT id FROM deliveries WHERE org_id = $1 AND status = 'pending' ORDER BY id DESC LIMIT $2)`,
    [ORG, (OPEN_JOBS * accounts.length) / 2],
  );
  const pending = await client.query<{ id: string }>(
    "SELECT id::text AS id FROM deliveries WHERE org_id = $1 AND status = 'pending' AND org_wait_since IS NULL ORDER BY id LIMIT $2",
    [ORG, BATCH],
  );
  const job = await client.query<{ id: string }>(
    "SELECT id::text AS id FROM jobs WHERE org_id = $1 AND status = 'processing' LIMIT 1",
    [ORG],
  );
  return {
    pending: pending.rows.map((row) => row.id),
    inFlight: inFlight.rows.map((row) => ({ id: row.id, attempt: 1 })),
    jobId: job.rows[0]!.id,
  };
}

/** Each operation `samples` times, each in a transaction rolled back: median buffers and ms per call, and what it scanned. */
async function measure(client: pg.Client, state: OpenState, samples: number): Promise<Map<string, Explained>> {
  const sql = new ExplainingSql(client);
  const measured = new Map<string, Explained>();
  for (const [name, run] of OPERATIONS) {
    const buffers: number[] = [];
    const ms: number[] = [];
    let scans: string[] = [];
    for (let i = 0; i < samples; i++) {
      sql.statements = [];
      await client.query('BEGIN');
      try {
        await run(sql, state);
      } finally {
        await client.query('ROLLBACK');
      }
      buffers.push(sql.statements.reduce((sum, statement) => sum + statement.buffers, 0));
      ms.push(sql.statements.reduce((sum, statement) => sum + statement.ms, 0));
      scans = [...new Set(sql.statements.flatMap((statement) => statement.scans))];
    }
    const median = (values: number[]) =>
      percentile(
        values.sort((a, b) => a - b),
        0.5,
      );
    measured.set(name, { buffers: median(buffers), ms: median(ms), scans });
  }
  return measured;
}

async function settle(client: pg.Client): Promise<void> {
  // As autovacuum would leave them: visibility map set, statistics fresh.
  await client.query('VACUUM ANALYZE jobs');
  await client.query('VACUUM ANALYZE deliveries');
}

export async function benchHistory(options: HistoryBenchOptions): Promise<BenchResult> {
  const database = await createTestDatabase({
    prefix: 'bench_history',
    serviceDir: path.resolve(__dirname, '../../services/publisher'),
  });
  const client = new pg.Client(database.connection);
  await client.connect();
  try {
    const accounts = Array.from({ length: options.accounts }, (_, n) => `acc_history_${n}`);
    const state = await addOpenJobs(client, accounts);
    await addHistory(client, options.smallJobs, accounts);
    await settle(client);
    const small = await measure(client, state, options.samples);
    const started = Date.now();
    await addHistory(client, options.largeJobs - options.smallJobs, accounts);
    await settle(client);
    const fillSeconds = Math.round((Date.now() - started) / 100) / 10;
    const large = await measure(client, state, options.samples);
    const {
      rows: [sizes],
    } = await client.query<{ deliveries: string; jobs: string }>(
      "SELECT pg_total_relation_size('deliveries') AS deliveries, pg_total_relation_size('jobs') AS jobs",
    );
    const mb = (bytes: string | undefined) => Math.round(Number(bytes) / 1048576);
    const figures: BenchFigure[] = OPERATIONS.map(([name]) => {
      const [before, after] = [small.get(name)!, large.get(name)!];
      return {
        name: `history: ${name}, beside ${options.largeJobs.toLocaleString('en-US')} finished jobs`,
        value: after.buffers,
        unit: 'buffers per call',
        baseline: before.buffers,
        baselineName: `beside ${options.smallJobs.toLocaleString('en-US')} finished jobs, same run`,
        // An index one level deeper adds a page per lookup; a statement that scanned history would
        // grow with it (x100 with the defaults).
        target: `ratio near 1 beside ${Math.round(options.largeJobs / options.smallJobs)}x the history: no scan of it, an index level at most`,
        detail: {
          'ms p50': Math.round(after.ms * 1000) / 1000,
          'baseline ms p50': Math.round(before.ms * 1000) / 1000,
          reads: after.scans.join(' ') || '-',
          'baseline reads': before.scans.join(' ') || '-',
          'deliveries MB': mb(sizes?.deliveries),
          'jobs MB': mb(sizes?.jobs),
          'history fill s': fillSeconds,
        },
      };
    });
    return {
      bench: 'history',
      params: {
        small_jobs: options.smallJobs,
        large_jobs: options.largeJobs,
        accounts: options.accounts,
        samples: options.samples,
        open_jobs: OPEN_JOBS,
      },
      figures,
    };
  } finally {
    await client.end();
    await database.drop();
  }
}
