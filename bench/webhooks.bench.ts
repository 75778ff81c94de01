// Webhook deliveries end to end (event published -> fan-out -> signed POST received) against a plain
// HTTP POST loop with the same concurrency, to the same local node:http receiver, in the same run.
// The dispatcher runs as its own process (services/webhook-dispatcher/dist: run `pnpm build` first),
// so its RSS is its own.
//   pnpm bench   (or: npx jest -c jest.bench.config.js bench/webhooks)   BENCH_EVENTS=10000 by default
// It also prints what each delivery cost the database (pg_stat_database deltas of the dispatcher's
// own database: committed transactions, i.e. autocommit statements, and rows written) and the most
// events that waited in the broker, so a slow run shows whether the dispatcher or the broker is behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import amqp from 'amqplib';
import pg from 'pg';
import { postPublished, systemPing, webhooksCreate } from '@svc/contracts';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { TEST_AMQP_URL, TEST_DATABASE_URL, uniqueName, uniqueNamespace } from '@svc/testing';

const N = Number(process.env.BENCH_EVENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const root = path.resolve(__dirname, '..');
// BENCH_DISPATCHER: another build's main.js (an A/B against an older version in the same conditions);
// BENCH_DISPATCHER_NODE_OPTIONS: node flags for the dispatcher alone (e.g. heap sizes).
const main = process.env.BENCH_DISPATCHER ?? path.join(root, 'services/webhook-dispatcher/dist/main.js');
const logger = createLogger({ service: 'bench', level: 'silent' });

function receiver() {
  let seen = 0;
  let target = Infinity;
  let reached: () => void = () => undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      if (++seen === target) reached();
    });
  });
  server.keepAliveTimeout = 60_000;
  return {
    server,
    /** Resolves once `count` more requests have arrived. */
    expect(count: number): Promise<void> {
      target = seen + count;
      return new Promise((resolve) => (reached = resolve));
    },
  };
}

/** The plain loop: CONCURRENCY workers POSTing the same kind of body over keep-alive connections. */
async function plainLoop(url: string, body: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < N) {
      next += 1;
      await post();
    }
  }));
  agent.destroy();
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

interface DbStats { xact_commit: number; tup_inserted: number; tup_updated: number; tup_fetched: number }

/** Counters of one database. Backends report theirs at most once a second and on exit, so read after the dispatcher stopped. */
async function dbStats(database: string): Promise<DbStats> {
  const client = new pg.Client(connectionConfig(TEST_DATABASE_URL, 'postgres'));
  await client.connect();
  try {
    const { rows } = await client.query<Record<keyof DbStats, string>>(
      'SELECT xact_commit, tup_inserted, tup_updated, tup_fetched FROM pg_stat_database WHERE datname = $1',
      [database],
    );
    const row = rows[0];
    if (row === undefined) throw new Error(`no statistics for database ${database}`);
    return { xact_commit: Number(row.xact_commit), tup_inserted: Number(row.tup_inserted), tup_updated: Number(row.tup_updated), tup_fetched: Number(row.tup_fetched) };
  } finally {
    await client.end();
  }
}

/** Samples the ready messages of a queue (a passive declare: read-only) and keeps the peak. */
async function queueDepthSampler(queue: string): Promise<{ peak: () => number; stop: () => Promise<void> }> {
  const connection = await amqp.connect(TEST_AMQP_URL);
  const channel = await connection.createChannel();
  let peak = 0;
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = channel.checkQueue(queue).then((ok) => void (peak = Math.max(peak, ok.messageCount)), () => undefined);
  }, 200);
  return {
    peak: () => peak,
    stop: async () => {
      clearInterval(timer);
      await sampling;
      await connection.close();
    },
  };
}

async function untilReady(broker: Broker, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the dispatcher exited with ${child.exitCode}`);
    try {
      await broker.rpc(systemPing, {}, { orgId: null, requestId: null, to: 'webhook-dispatcher', timeoutMs: 1000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

it(`delivers ${N} webhook events vs a plain POST loop (concurrency ${CONCURRENCY})`, async () => {
  if (!existsSync(main)) throw new Error(`${main} is missing: run pnpm build before pnpm bench`);
  const namespace = uniqueNamespace('bwh');
  const database = uniqueName('bench_wh').replace(/-/g, '_');
  const sink = receiver();
  await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(sink.server.address() as AddressInfo).port}/hook`;
  const broker = await Broker.connect({ url: TEST_AMQP_URL, namespace, service: 'bench', logger });
  const child = spawn(process.execPath, [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROFILE] : []), main], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      NODE_OPTIONS: process.env.BENCH_DISPATCHER_NODE_OPTIONS ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      AMQP_URL: TEST_AMQP_URL,
      AMQP_NAMESPACE: namespace,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_NAME: database,
      PROBE_PORT: '0',
      VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
      ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY * 2),
      WEBHOOK_ENDPOINT_CONCURRENCY: String(CONCURRENCY),
    },
  });
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(child.pid!))), 100);
  try {
    await untilReady(broker, child);
    const endpoint = await broker.rpc(webhooksCreate, { url, events: ['post.published'] }, { orgId: 'org_bench', requestId: null });
    const event = (n: number) => ({
      id: `post_${n}`, job_id: `post_${n}`, status: 'published' as const, account_ids: ['acc_1'], platforms: ['x' as const],
      text: `benchmark post ${n}`, scheduled_at: null, error_message: null,
      results: [{ account_id: 'acc_1', provider: 'x' as const, status: 'published' as const, platform_post_id: `p_${n}`, platform_post_url: null, error_code: null, error_message: null }],
    });
    const body = JSON.stringify({ id: endpoint.id, type: 'post.published', created_at: new Date().toISOString(), data: event(0) });

    // Baseline: the same number of POSTs of a same-sized body, CONCURRENCY at a time.
    let done = sink.expect(N);
    let started = performance.now();
    await plainLoop(url, body);
    await done;
    const plainMs = performance.now() - started;

    // Dispatcher: publish N events (confirmed, 200 in flight) and wait for N signed deliveries.
    const idleRss = rssMb(child.pid!);
    peakRss = idleRss;
    const statsBefore = await dbStats(database);
    const depth = await queueDepthSampler(`${namespace}.webhook-dispatcher.work`);
    done = sink.expect(N);
    started = performance.now();
    for (let i = 0; i < N; i += 200) {
      await Promise.all(Array.from({ length: Math.min(200, N - i) }, (_, k) => broker.publish(postPublished, event(i + k), { orgId: 'org_bench', requestId: null })));
    }
    const publishedMs = performance.now() - started;
    await done;
    const dispatchMs = performance.now() - started;
    await depth.stop();
    clearInterval(sampler);
    await stop(child);
    const statsAfter = await dbStats(database);
    const perDelivery = (key: keyof DbStats) => ((statsAfter[key] - statsBefore[key]) / N).toFixed(2);

    const rate = (ms: number) => Math.round((N / ms) * 1000);
    console.log(
      [
        `events: ${N}, one endpoint, concurrency ${CONCURRENCY} (dispatcher: WEBHOOK_ENDPOINT_CONCURRENCY=${CONCURRENCY}, WEBHOOK_CONCURRENCY=${CONCURRENCY * 2})`,
        `plain POST loop: ${plainMs.toFixed(0)} ms (${rate(plainMs)} req/s)  [baseline]`,
        `dispatcher end to end: ${dispatchMs.toFixed(0)} ms (${rate(dispatchMs)} deliveries/s); events published in ${publishedMs.toFixed(0)} ms`,
        `dispatcher / plain throughput ratio: ${(plainMs / dispatchMs).toFixed(3)}`,
        `dispatcher RSS: ${idleRss.toFixed(0)} MB idle, ${peakRss.toFixed(0)} MB peak`,
        `database per delivery: ${perDelivery('xact_commit')} transactions, ${perDelivery('tup_inserted')} rows inserted, ${perDelivery('tup_updated')} updated, ${perDelivery('tup_fetched')} fetched`,
        `events waiting in the broker: at most ${depth.peak()}`,
      ].join('\n'),
    );
  } finally {
    clearInterval(sampler);
    await stop(child);
    const serviceQueues = ['webhook-dispatcher.work', 'webhook-dispatcher.work.parking', 'webhook-dispatcher.deliveries', 'webhook-dispatcher.deliveries.parking', 'webhook-dispatcher.rpc'];
    await broker.deleteTopology({ queues: serviceQueues });
    await broker.close();
    sink.server.closeAllConnections();
    await new Promise((resolve) => sink.server.close(resolve));
    await dropDatabase(connectionConfig(TEST_DATABASE_URL, database));
  }
});
