// GET /v1/analytics/posts over 100,000 cached rows of one organization, against the same page
// query sent with raw pg; then the background sync of 10,000 X rows against the sandbox's limits.
//   pnpm bench   (or: npx jest -c jest.bench.config.js bench/analytics)
import type { AddressInfo } from 'node:net';
import { analyticsPostsList, systemPing } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { analyticsFromConfig } from '@svc/providers';
import { Client } from 'pg';
import { sandboxConfig } from '../libs/providers/test/support/sandbox.ts';
import { AnalyticsRepository } from '../services/analytics-sync/src/data/analytics.repository.ts';
import { accountsClient } from '../services/analytics-sync/src/domain/accounts-client.ts';
import { BackgroundSync } from '../services/analytics-sync/src/domain/background-sync.ts';
import { systemClock } from '../services/analytics-sync/src/domain/cadence.ts';
import type { PrismaClient } from '../services/analytics-sync/src/generated/prisma/client.ts';
import { connectAccount } from '../test/publishing/publishing-support.ts';
import { startSystem, type SystemHarness } from '../test/support/system-harness.ts';

const ROWS = Number(process.env.BENCH_ANALYTICS_ROWS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const SYNC_ACCOUNTS = 10;
const SYNC_POSTS_PER_ACCOUNT = Number(process.env.BENCH_SYNC_POSTS ?? 1000);
const X_LOOKUP_LIMIT = 900;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const describeTimes = (label: string, times: number[]) => `${label}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms`;

async function time(samples: number, fn: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < 20; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times;
}

/** Fresh, synced rows (stale in a day), newest first by created_at, plus another organization's rows. */
async function seed(pg: Client, orgId: string, rows: number): Promise<void> {
  for (const [org, count] of [[orgId, rows], ['bench-other-org', Math.floor(rows / 5)]] as const) {
    await pg.query(
      `INSERT INTO analytics_rows (id, org_id, seq, post_id, account_id, platform, platform_post_id, platform_post_url, text, created_at, published_at,
                                   metrics, warnings, sync_status, last_updated_at, stale_after, next_sync_at)
       SELECT gen_random_uuid(), $1, $2::int - g + 1, gen_random_uuid()::text, 'acct_' || (g % 50), (ARRAY['instagram','facebook','x','linkedin','tiktok'])[1 + g % 5],
              (1000000000000000000 + g)::text, 'https://x.com/bench/status/' || g, 'benchmark post number ' || g,
              now() - make_interval(secs => g), now() - make_interval(secs => g),
              jsonb_build_object('like_count', g % 97, 'impression_count', g % 1009, 'reply_count', g % 7), '[]'::jsonb, 'synced',
              now(), now() + interval '1 day', now() + interval '1 day'
         FROM generate_series(1, $2::int) g`,
      [org, count],
    );
    await pg.query('INSERT INTO analytics_org_counters (org_id, rows) VALUES ($1, $2)', [org, count]);
  }
  await pg.query('VACUUM ANALYZE analytics_rows');
}

describe('analytics benchmark', () => {
  let system: SystemHarness;
  let pg: Client;
  let baseUrl: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'analytics-sync'], env: { ANALYTICS_BACKGROUND_SYNC: 'false' } });
    const connection = system.workers['analytics-sync']!.runtime.connection;
    pg = new Client({ host: connection.host, port: connection.port, user: connection.user, password: connection.password, database: connection.database });
    await pg.connect();
    const server = system.gateway.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  }, 120_000);

  afterAll(async () => {
    await close?.();
    await pg?.end();
    await system?.close();
  });

  it(`GET /v1/analytics/posts?limit=100 over ${ROWS} rows: first and deep page vs raw pg`, async () => {
    const orgId = `bench_${Date.now()}`;
    await seed(pg, orgId, ROWS);
    const auth = `Bearer ${await system.token(orgId)}`;
    const deepPage = Math.floor(ROWS / 100) - 10;

    const get = (page: number) => async () => {
      const res = await fetch(`${baseUrl}/v1/analytics/posts?limit=100&page=${page}`, { headers: { authorization: auth } });
      const body = (await res.json()) as { items: unknown[]; total: number };
      if (res.status !== 200 || body.items.length !== 100 || body.total !== ROWS) throw new Error(`unexpected answer ${res.status}`);
    };
    // Baseline: the page and its total as one would write them by hand (OFFSET over the ordered
    // index and count(*)), over the same connection-less path: no HTTP, no RPC, no JSON mapping.
    const raw = (page: number) => async () => {
      const rows = await pg.query(`SELECT * FROM analytics_rows WHERE org_id = $1 ORDER BY seq DESC OFFSET ${(page - 1) * 100} LIMIT 100`, [orgId]);
      await pg.query('SELECT count(*) AS total FROM analytics_rows WHERE org_id = $1', [orgId]);
      if (rows.rows.length !== 100) throw new Error('unexpected page');
    };

    // The service's own two statements (counter, then a seq range), sent with raw pg.
    const same = (page: number) => async () => {
      const counter = await pg.query<{ rows: string }>('SELECT rows FROM analytics_org_counters WHERE org_id = $1', [orgId]);
      const rows = await pg.query(`SELECT * FROM analytics_rows WHERE org_id = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 100`, [orgId, Number(counter.rows[0]!.rows) - (page - 1) * 100]);
      if (rows.rows.length !== 100) throw new Error('unexpected page');
    };

    // The service's RPC alone (broker round trip, reply validation, Prisma raw query, mapping), without HTTP.
    const broker = system.workers.accounts!.runtime.broker;
    const rpc = (page: number) => async () => {
      const reply = await broker.rpc(analyticsPostsList, { page, limit: 100 }, { orgId, requestId: null });
      if (reply.items.length !== 100) throw new Error('unexpected page');
    };

    // The broker round trip alone: the same RPC path with an empty request and reply.
    const ping = async () => void (await broker.rpc(systemPing, {}, { orgId: null, requestId: null, to: 'analytics-sync' }));

    const results = {
      ping: await time(SAMPLES, ping),
      rpcFirst: await time(SAMPLES, rpc(1)),
      rpcDeep: await time(SAMPLES, rpc(deepPage)),
      apiFirst: await time(SAMPLES, get(1)),
      sameFirst: await time(SAMPLES, same(1)),
      rawFirst: await time(SAMPLES, raw(1)),
      apiDeep: await time(SAMPLES, get(deepPage)),
      sameDeep: await time(SAMPLES, same(deepPage)),
      rawDeep: await time(SAMPLES, raw(deepPage)),
    };
    console.log(
      [
        `rows in the organization: ${ROWS} (+${Math.floor(ROWS / 5)} of another organization), samples per case: ${SAMPLES}, deep page: ${deepPage}`,
        describeTimes('API first page (HTTP, JWT, rate limit, RPC, SQL, JSON)', results.apiFirst),
        describeTimes('RPC system.ping.v1 to analytics-sync (broker round trip only)', results.ping),
        describeTimes('RPC analytics.posts_list.v1 first page (no HTTP)', results.rpcFirst),
        describeTimes(`RPC analytics.posts_list.v1 deep page ${deepPage}`, results.rpcDeep),
        describeTimes('raw pg first page, the service\'s statements (counter + seq range)  [baseline]', results.sameFirst),
        describeTimes('raw pg first page, OFFSET + count(*)  [naive baseline]', results.rawFirst),
        describeTimes(`API deep page ${deepPage}`, results.apiDeep),
        describeTimes(`raw pg deep page ${deepPage}, the service's statements  [baseline]`, results.sameDeep),
        describeTimes(`raw pg deep page ${deepPage}, OFFSET + count(*)  [naive baseline]`, results.rawDeep),
        `API / service statements p99 ratio: first ${(percentile(results.apiFirst, 99) / percentile(results.sameFirst, 99)).toFixed(2)}, deep ${(percentile(results.apiDeep, 99) / percentile(results.sameDeep, 99)).toFixed(2)}`,
      ].join('\n'),
    );
  });

  it(`background sync of ${SYNC_ACCOUNTS * SYNC_POSTS_PER_ACCOUNT} X rows stays within the sandbox's advertised limits`, async () => {
    const orgId = `bench_sync_${Date.now()}`;
    const auth = `Bearer ${await system.token(orgId)}`;
    const accounts: { id: string; token: string }[] = [];
    for (let n = 0; n < SYNC_ACCOUNTS; n += 1) {
      const token = `bench-x-${orgId}-${n}`;
      accounts.push({ id: await connectAccount(system, auth, 'x', token), token });
    }
    // Real posts on the sandbox's X, 20 requests at a time.
    const posts: { accountId: string; id: string }[] = [];
    for (const account of accounts) {
      for (let i = 0; i < SYNC_POSTS_PER_ACCOUNT; i += 20) {
        const batch = await Promise.all(Array.from({ length: Math.min(20, SYNC_POSTS_PER_ACCOUNT - i) }, async (_, k) => {
          const res = await fetch(`${system.sandbox.baseUrl}/x/2/tweets`, { method: 'POST', headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: `bench ${account.id} ${i + k}` }) });
          return ((await res.json()) as { data: { id: string } }).data.id;
        }));
        posts.push(...batch.map((id) => ({ accountId: account.id, id })));
      }
    }
    await pg.query(
      `INSERT INTO analytics_rows (id, org_id, seq, post_id, account_id, platform, platform_post_id, created_at, next_sync_at)
       SELECT gen_random_uuid(), $1, n, gen_random_uuid()::text, a, 'x', p, now(), now() FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(a, p, n)`,
      [orgId, posts.map((post) => post.accountId), posts.map((post) => post.id)],
    );
    await pg.query('INSERT INTO analytics_org_counters (org_id, rows) VALUES ($1, $2)', [orgId, posts.length]);

    const runtime = system.workers['analytics-sync']!.runtime;
    const logger = createLogger({ service: 'bench', level: 'silent' });
    const repo = new AnalyticsRepository(runtime.db as unknown as PrismaClient);
    const sync = new BackgroundSync({
      deps: {
        repo,
        accounts: accountsClient(runtime.broker),
        analytics: analyticsFromConfig(sandboxConfig(system.sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 })),
        clock: systemClock,
        logger,
        settings: { rateLimitDeferMs: 15 * 60_000, transientRetryMs: 5 * 60_000 },
        concurrency: 4,
      },
      repo,
      logger,
      intervalMs: 1000,
      batchSize: 1000,
      leaseMs: 10 * 60_000,
    });
    const started = performance.now();
    let passes = 0;
    while ((await sync.runOnce()) > 0) passes += 1;
    const elapsed = performance.now() - started;

    const statuses = await pg.query<{ sync_status: string; n: string }>('SELECT sync_status, count(*) AS n FROM analytics_rows WHERE org_id = $1 GROUP BY 1', [orgId]);
    const paused = await pg.query<{ n: string }>('SELECT count(*) AS n FROM account_pauses WHERE org_id = $1', [orgId]);
    // The sandbox's own count of lookups in the window, read from its headers with one more call per account.
    const used: number[] = [];
    for (const account of accounts) {
      const res = await fetch(`${system.sandbox.baseUrl}/x/2/tweets?ids=${posts.find((post) => post.accountId === account.id)!.id}`, { headers: { authorization: `Bearer ${account.token}` } });
      used.push(X_LOOKUP_LIMIT - Number(res.headers.get('x-rate-limit-remaining')) - 1);
    }
    console.log(
      [
        `rows: ${posts.length} over ${SYNC_ACCOUNTS} X accounts; passes of 1000 rows: ${passes}; time: ${elapsed.toFixed(0)} ms (${Math.round((posts.length / elapsed) * 1000)} rows/s)`,
        `statuses: ${statuses.rows.map((row) => `${row.sync_status} ${row.n}`).join(', ')}; accounts paused by a rate limit: ${paused.rows[0]!.n}`,
        `GET /2/tweets calls per account in the 15-minute window: max ${Math.max(...used)} of the advertised ${X_LOOKUP_LIMIT} (one call per post would need ${SYNC_POSTS_PER_ACCOUNT})`,
      ].join('\n'),
    );
    expect(statuses.rows).toEqual([{ sync_status: 'synced', n: String(posts.length) }]);
    expect(Math.max(...used)).toBeLessThanOrEqual(X_LOOKUP_LIMIT);
  });
});
