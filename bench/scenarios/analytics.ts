// analytics: GET /v1/analytics/posts?limit=100 over many cached rows of one organization (first page
// and a deep one), against the service's own statements sent with raw pg (the baseline) and the
// naive OFFSET + count(*); then the background sync of X rows against the sandbox's advertised limit.
// The whole system runs in this process (gateway, accounts, analytics-sync, sandbox).
import type { AddressInfo } from 'node:net';
import { analyticsPostsList, systemPing } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { analyticsFromConfig } from '@svc/providers';
import { Client } from 'pg';
import { sandboxConfig } from '../../libs/providers/test/support/sandbox.ts';
import { AnalyticsRepository } from '../../services/analytics-sync/src/data/analytics.repository.ts';
import { accountsClient } from '../../services/analytics-sync/src/domain/accounts-client.ts';
import { BackgroundSync } from '../../services/analytics-sync/src/domain/background-sync.ts';
import { systemClock } from '../../services/analytics-sync/src/domain/cadence.ts';
import { NetworkReadGate } from '../../services/analytics-sync/src/domain/network-read-gate.ts';
import type { PrismaClient } from '../../services/analytics-sync/src/generated/prisma/client.ts';
import { connectAccount } from '../../test/publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../../test/support/system-harness.ts';
import { percentile, type BenchFigure, type BenchResult } from '../support/results.ts';

export interface AnalyticsOptions {
  /** Cached rows of the measured organization (plus a fifth as many of another one). */
  rows: number;
  /** Requests per case, after 20 warm-up requests (as many as the samples when fewer). */
  samples: number;
  syncAccounts: number;
  syncPostsPerAccount: number;
}

/** X's advertised `GET /2/tweets` limit per account in 15 minutes, which the sandbox enforces. */
const X_LOOKUP_LIMIT = 900;
const PAGE = 100;

async function time(samples: number, fn: () => Promise<void>): Promise<number[]> {
  // 20 warm-up requests (fewer for a smoke run of fewer samples).
  for (let i = 0; i < Math.min(20, samples); i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const p = (sorted: number[], q: number) => Math.round(percentile(sorted, q) * 100) / 100;

/** Each seeded account's due time, as the repository keeps it for rows it records (the claim reads accounts by it). */
async function scheduleAccounts(pg: Client): Promise<void> {
  await pg.query(
    `INSERT INTO analytics_account_due (account_id, next_due_at) SELECT account_id, min(next_sync_at) FROM analytics_readings GROUP BY account_id
     ON CONFLICT (account_id) DO UPDATE SET next_due_at = LEAST(analytics_account_due.next_due_at, EXCLUDED.next_due_at)`,
  );
}

/** Fresh, synced rows (stale in a day), newest first by created_at, plus another organization's rows. */
async function seed(pg: Client, orgId: string, rows: number): Promise<void> {
  for (const [org, count] of [
    [orgId, rows],
    [`${orgId}-other`, Math.floor(rows / 5)],
  ] as const) {
    await pg.query(
      `INSERT INTO analytics_rows (id, org_id, seq, post_id, account_id, platform, platform_post_id, platform_post_url, text, created_at, published_at)
       SELECT gen_random_uuid(), $1, $2::int - g + 1, gen_random_uuid()::text, 'acct_' || (g % 50), (ARRAY['instagram','facebook','x','linkedin','tiktok'])[1 + g % 5],
              (1000000000000000000 + g)::text, 'https://x.com/bench/status/' || g, 'benchmark post number ' || g,
              now() - make_interval(secs => g), now() - make_interval(secs => g)
         FROM generate_series(1, $2::int) g`,
      [org, count],
    );
    await pg.query(
      `INSERT INTO analytics_readings (row_id, account_id, next_sync_at, metrics, warnings, sync_status, last_updated_at, stale_after)
       SELECT id, account_id, now() + interval '1 day',
              jsonb_build_object('like_count', seq % 97, 'impression_count', seq % 1009, 'reply_count', seq % 7), '[]'::jsonb, 'synced', now(), now() + interval '1 day'
         FROM analytics_rows WHERE org_id = $1`,
      [org],
    );
    await pg.query('INSERT INTO analytics_org_counters (org_id, rows) VALUES ($1, $2)', [org, count]);
  }
  await scheduleAccounts(pg);
  await pg.query('VACUUM ANALYZE analytics_rows, analytics_readings');
}

async function benchList(
  system: SystemHarness,
  pg: Client,
  baseUrl: string,
  options: AnalyticsOptions,
): Promise<{ figures: BenchFigure[]; lines: string[] }> {
  const { rows: ROWS, samples } = options;
  if (ROWS < 2 * PAGE) throw new Error(`BENCH_ANALYTICS_ROWS must be at least ${2 * PAGE}`);
  const orgId = `bench_${Date.now()}`;
  await seed(pg, orgId, ROWS);
  const auth = `Bearer ${await system.token(orgId)}`;
  // Ten pages before the end (page 990 of 100,000 rows), or the last page of a small run.
  const deepPage = Math.max(2, Math.floor(ROWS / PAGE) - 10);

  const get = (page: number) => async () => {
    const res = await fetch(`${baseUrl}/v1/analytics/posts?limit=${PAGE}&page=${page}`, {
      headers: { authorization: auth },
    });
    const body = (await res.json()) as { items: unknown[]; total: number };
    if (res.status !== 200 || body.items.length !== PAGE || body.total !== ROWS)
      throw new Error(`unexpected answer ${res.status}`);
  };
  // Naive: the page and its total as one would write them by hand (OFFSET over the ordered index and
  // count(*)), with no HTTP, no RPC, no JSON mapping.
  const raw = (page: number) => async () => {
    const rows = await pg.query(
      `SELECT * FROM analytics_rows r JOIN analytics_readings d ON d.row_id = r.id WHERE r.org_id = $1 ORDER BY r.seq DESC OFFSET ${(page - 1) * PAGE} LIMIT ${PAGE}`,
      [orgId],
    );
    await pg.query('SELECT count(*) AS total FROM analytics_rows WHERE org_id = $1', [orgId]);
    if (rows.rows.length !== PAGE) throw new Error('unexpected page');
  };
  // Baseline: the service's own two statements (counter, then a seq range), sent with raw pg.
  const same = (page: number) => async () => {
    const counter = await pg.query<{ rows: string }>('SELECT rows FROM analytics_org_counters WHERE org_id = $1', [
      orgId,
    ]);
    const rows = await pg.query(
      `SELECT * FROM analytics_rows r JOIN analytics_readings d ON d.row_id = r.id WHERE r.org_id = $1 AND r.seq <= $2 ORDER BY r.seq DESC LIMIT ${PAGE}`,
      [orgId, Number(counter.rows[0]!.rows) - (page - 1) * PAGE],
    );
    if (rows.rows.length !== PAGE) throw new Error('unexpected page');
  };
  // The service's RPC alone (broker round trip, reply validation, SQL, mapping), without HTTP.
  const broker = system.workers.accounts!.runtime.broker;
  const rpc = (page: number) => async () => {
    const reply = await broker.rpc(analyticsPostsList, { page, limit: PAGE }, { orgId, requestId: null });
    if (reply.items.length !== PAGE) throw new Error('unexpected page');
  };
  // The broker round trip alone: the same RPC path with an empty request and reply.
  const ping = async () =>
    void (await broker.rpc(systemPing, {}, { orgId: null, requestId: null, to: 'analytics-sync' }));

  const t = {
    ping: await time(samples, ping),
    rpcFirst: await time(samples, rpc(1)),
    rpcDeep: await time(samples, rpc(deepPage)),
    apiFirst: await time(samples, get(1)),
    sameFirst: await time(samples, same(1)),
    rawFirst: await time(samples, raw(1)),
    apiDeep: await time(samples, get(deepPage)),
    sameDeep: await time(samples, same(deepPage)),
    rawDeep: await time(samples, raw(deepPage)),
  };
  const figure = (
    which: string,
    api: number[],
    rpcTimes: number[],
    baseline: number[],
    naive: number[],
  ): BenchFigure => ({
    name: `analytics: GET /v1/analytics/posts?limit=${PAGE}, ${which} over ${ROWS.toLocaleString('en-US')} rows`,
    value: p(api, 0.99),
    unit: 'ms p99',
    baseline: p(baseline, 0.99),
    baselineName: "raw pg, the service's statements",
    target: 'p99 < 30 ms',
    detail: {
      'p50 ms': p(api, 0.5),
      'baseline p50 ms': p(baseline, 0.5),
      'RPC alone p99 ms': p(rpcTimes, 0.99),
      'naive OFFSET + count(*) p99 ms': p(naive, 0.99),
      'broker ping p99 ms': p(t.ping, 0.99),
      samples,
    },
  });
  const line = (label: string, times: number[]) =>
    `${label}: p50 ${p(times, 0.5).toFixed(2)} ms, p99 ${p(times, 0.99).toFixed(2)} ms`;
  return {
    figures: [
      figure('first page', t.apiFirst, t.rpcFirst, t.sameFirst, t.rawFirst),
      figure(`deep page ${deepPage}`, t.apiDeep, t.rpcDeep, t.sameDeep, t.rawDeep),
    ],
    lines: [
      `rows in the organization: ${ROWS} (+${Math.floor(ROWS / 5)} of another organization), samples per case: ${samples}, deep page: ${deepPage}`,
      line('API first page (HTTP, JWT, rate limit, RPC, SQL, JSON)', t.apiFirst),
      line('RPC system.ping.v1 to analytics-sync (broker round trip only)', t.ping),
      line('RPC analytics.posts_list.v1 first page (no HTTP)', t.rpcFirst),
      line(`RPC analytics.posts_list.v1 deep page ${deepPage}`, t.rpcDeep),
      line("raw pg first page, the service's statements (counter + seq range)  [baseline]", t.sameFirst),
      line('raw pg first page, OFFSET + count(*)  [naive baseline]', t.rawFirst),
      line(`API deep page ${deepPage}`, t.apiDeep),
      line(`raw pg deep page ${deepPage}, the service's statements  [baseline]`, t.sameDeep),
      line(`raw pg deep page ${deepPage}, OFFSET + count(*)  [naive baseline]`, t.rawDeep),
    ],
  };
}

async function benchSync(
  system: SystemHarness,
  pg: Client,
  options: AnalyticsOptions,
): Promise<{ figures: BenchFigure[]; lines: string[] }> {
  const orgId = `bench_sync_${Date.now()}`;
  const auth = `Bearer ${await system.token(orgId)}`;
  const accounts: { id: string; token: string }[] = [];
  for (let n = 0; n < options.syncAccounts; n += 1) {
    const token = `bench-x-${orgId}-${n}`;
    accounts.push({ id: await connectAccount(system, auth, 'x', token), token });
  }
  // Real posts on the sandbox's X, 20 requests at a time.
  const posts: { accountId: string; id: string }[] = [];
  for (const account of accounts) {
    for (let i = 0; i < options.syncPostsPerAccount; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, options.syncPostsPerAccount - i) }, async (_, k) => {
          const res = await fetch(`${system.sandbox.baseUrl}/x/2/tweets`, {
            method: 'POST',
            headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ text: `bench ${account.id} ${i + k}` }),
          });
          return ((await res.json()) as { data: { id: string } }).data.id;
        }),
      );
      posts.push(...batch.map((id) => ({ accountId: account.id, id })));
    }
  }
  await pg.query(
    `WITH inserted AS (
       INSERT INTO analytics_rows (id, org_id, seq, post_id, account_id, platform, platform_post_id, created_at)
       SELECT gen_random_uuid(), $1, n, gen_random_uuid()::text, a, 'x', p, now() FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(a, p, n)
       RETURNING id, account_id)
     INSERT INTO analytics_readings (row_id, account_id, next_sync_at) SELECT id, account_id, now() FROM inserted`,
    [orgId, posts.map((post) => post.accountId), posts.map((post) => post.id)],
  );
  await pg.query('INSERT INTO analytics_org_counters (org_id, rows) VALUES ($1, $2)', [orgId, posts.length]);
  await scheduleAccounts(pg);

  const runtime = system.workers['analytics-sync']!.runtime;
  const logger = createLogger({ service: 'bench', level: 'silent' });
  // The claim and the save on a plain pg pool, as the service wires them.
  const sql = runtime.openPool('bench', 2);
  const repo = new AnalyticsRepository(runtime.db as unknown as PrismaClient, sql);
  const sync = new BackgroundSync({
    deps: {
      repo,
      accounts: accountsClient(runtime.broker),
      analytics: analyticsFromConfig(sandboxConfig(system.sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 })),
      clock: systemClock,
      logger,
      settings: { rateLimitDeferMs: 15 * 60_000, transientRetryMs: 5 * 60_000 },
      concurrency: 4,
      // No process-wide rate here: the figure is the background's own throughput.
      gate: new NetworkReadGate({ concurrency: 16, perSecond: 0 }),
    },
    repo,
    logger,
    intervalMs: 1000,
    batchSize: 1000,
    leaseMs: 10 * 60_000,
  });
  const started = performance.now();
  let passes = 0;
  try {
    while ((await sync.runOnce()) > 0) passes += 1;
  } finally {
    await sql.end();
  }
  const elapsed = performance.now() - started;

  const statuses = await pg.query<{ sync_status: string; n: string }>(
    'SELECT d.sync_status, count(*) AS n FROM analytics_rows r JOIN analytics_readings d ON d.row_id = r.id WHERE r.org_id = $1 GROUP BY 1',
    [orgId],
  );
  const paused = await pg.query<{ n: string }>('SELECT count(*) AS n FROM account_pauses WHERE org_id = $1', [orgId]);
  // The sandbox's own count of lookups in the window, read from its headers with one more call per account.
  const used: number[] = [];
  for (const account of accounts) {
    const res = await fetch(
      `${system.sandbox.baseUrl}/x/2/tweets?ids=${posts.find((post) => post.accountId === account.id)!.id}`,
      { headers: { authorization: `Bearer ${account.token}` } },
    );
    used.push(X_LOOKUP_LIMIT - Number(res.headers.get('x-rate-limit-remaining')) - 1);
  }
  const synced = Number(statuses.rows.find((row) => row.sync_status === 'synced')?.n ?? 0);
  // Like deliver's exactly-once check: a run that did not sync every row, or went past X's limit, has no figure.
  if (synced !== posts.length || statuses.rows.length !== 1)
    throw new Error(`not every row synced: ${statuses.rows.map((row) => `${row.sync_status} ${row.n}`).join(', ')}`);
  if (Math.max(...used) > X_LOOKUP_LIMIT)
    throw new Error(
      `${Math.max(...used)} X lookups for one account in the window, over the advertised ${X_LOOKUP_LIMIT}`,
    );
  return {
    figures: [
      {
        name: `analytics: background sync of ${posts.length.toLocaleString('en-US')} X rows`,
        value: (posts.length / elapsed) * 1000,
        unit: 'rows/s',
        target: `<= ${X_LOOKUP_LIMIT} X lookups per account per 15 min`,
        detail: {
          seconds: elapsed / 1000,
          'passes of 1000 rows': passes,
          'X lookups per account (max)': Math.max(...used),
          'one lookup per post would need': options.syncPostsPerAccount,
          'accounts paused': Number(paused.rows[0]!.n),
          'rows synced': synced,
        },
      },
    ],
    lines: [
      `rows: ${posts.length} over ${options.syncAccounts} X accounts; passes of 1000 rows: ${passes}; time: ${elapsed.toFixed(0)} ms (${Math.round((posts.length / elapsed) * 1000)} rows/s)`,
      `statuses: ${statuses.rows.map((row) => `${row.sync_status} ${row.n}`).join(', ')}; accounts paused by a rate limit: ${paused.rows[0]!.n}`,
      `GET /2/tweets calls per account in the 15-minute window: max ${Math.max(...used)} of the advertised ${X_LOOKUP_LIMIT} (one call per post would need ${options.syncPostsPerAccount})`,
    ],
  };
}

/** Starts the system, runs the list and the sync cases, stops it; the lines are the detailed printout. */
export async function benchAnalytics(options: AnalyticsOptions): Promise<{ result: BenchResult; lines: string[] }> {
  const system = await startSystem({
    services: ['accounts', 'analytics-sync'],
    env: { ANALYTICS_BACKGROUND_SYNC: 'false' },
  });
  let pg: Client | undefined;
  const server = system.gateway.listen(0, '127.0.0.1');
  // Listened for before anything else is awaited: the event may not wait for us.
  const listening = new Promise((resolve) => server.once('listening', resolve));
  try {
    const connection = system.workers['analytics-sync']!.runtime.connection;
    pg = new Client({
      host: connection.host,
      port: connection.port,
      user: connection.user,
      password: connection.password,
      database: connection.database,
    });
    await pg.connect();
    await listening;
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const list = await benchList(system, pg, baseUrl, options);
    const sync = await benchSync(system, pg, options);
    return {
      result: {
        bench: 'analytics',
        params: {
          rows: options.rows,
          samples: options.samples,
          sync_accounts: options.syncAccounts,
          sync_posts_per_account: options.syncPostsPerAccount,
        },
        figures: [...list.figures, ...sync.figures],
      },
      lines: [...list.lines, ...sync.lines],
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await pg?.end();
    await system.close();
  }
}
