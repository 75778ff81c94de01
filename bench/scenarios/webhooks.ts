// webhooks: events published to RabbitMQ, fanned out, signed and POSTed by the dispatcher (its own
// process, built dist/, so its RSS is its own) to a local node:http receiver answering 204; end to
// end = from the first event published to the last request received. Baseline: a plain keep-alive
// POST loop from this process, same concurrency, same receiver, same body size, in the same run.
// Also what each delivery cost the dispatcher's database (pg_stat_database deltas, read after the
// dispatcher exits: committed transactions, i.e. autocommit statements, and rows written), the most
// events that waited in the broker (a slow run shows whether the dispatcher or the broker is behind),
// and the dispatcher's RSS idle and at its peak (sampled every 100 ms).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import amqp from 'amqplib';
import pg from 'pg';
import { postPublished, systemPing, webhooksCreate } from '@svc/contracts';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { serviceQueues, TEST_AMQP_URL, TEST_DATABASE_URL, uniqueName, uniqueNamespace } from '@svc/testing';
import { serviceNodeFlags } from '../../test/support/service-process.ts';
import { rssMb } from '../support/bench-system.ts';
import type { BenchResult } from '../support/results.ts';

export interface WebhooksOptions {
  events: number;
  /** POSTs in flight of the plain loop, and the dispatcher's WEBHOOK_ENDPOINT_CONCURRENCY (twice it: WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** The dispatcher's main.js (another build's for an A/B); the built one by default. */
  dispatcherMain?: string;
  /** NODE_OPTIONS for the dispatcher alone (heap sizes, --require of a logger). */
  nodeOptions?: string;
  /** Writes the dispatcher's V8 CPU profile (`--cpu-prof`) into this directory when it stops. */
  profileDir?: string;
}

const root = path.resolve(__dirname, '../..');
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

/** The plain loop: `concurrency` workers POSTing `count` bodies over keep-alive connections. */
async function plainLoop(url: string, body: string, count: number, concurrency: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        await post();
      }
    }),
  );
  agent.destroy();
}

interface DbStats {
  xact_commit: number;
  tup_inserted: number;
  tup_updated: number;
  tup_fetched: number;
}

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
    return {
      xact_commit: Number(row.xact_commit),
      tup_inserted: Number(row.tup_inserted),
      tup_updated: Number(row.tup_updated),
      tup_fetched: Number(row.tup_fetched),
    };
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
    sampling = channel.checkQueue(queue).then(
      (ok) => void (peak = Math.max(peak, ok.messageCount)),
      () => undefined,
    );
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

export async function benchWebhooks(options: WebhooksOptions): Promise<BenchResult> {
  const { events: N, concurrency } = options;
  const main = options.dispatcherMain ?? path.join(root, 'services/webhook-dispatcher/dist/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run pnpm build before the benchmark`);
  const namespace = uniqueNamespace('bwh');
  const database = uniqueName('bench_wh').replace(/-/g, '_');
  const sink = receiver();
  await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(sink.server.address() as AddressInfo).port}/hook`;
  const broker = await Broker.connect({ url: TEST_AMQP_URL, namespace, service: 'bench', logger });
  const child = spawn(
    process.execPath,
    [
      ...serviceNodeFlags('webhook-dispatcher'),
      ...(options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : []),
      main,
    ],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        NODE_OPTIONS: options.nodeOptions ?? '',
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        AMQP_URL: TEST_AMQP_URL,
        AMQP_NAMESPACE: namespace,
        DATABASE_URL: TEST_DATABASE_URL,
        DATABASE_NAME: database,
        PROBE_PORT: '0',
        VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
        ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_CONCURRENCY: String(concurrency * 2),
        WEBHOOK_ENDPOINT_CONCURRENCY: String(concurrency),
        // One organization's endpoint: its limit across processes is not what this measures.
        WEBHOOK_ORG_CONCURRENCY: String(concurrency),
      },
    },
  );
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(child.pid!))), 100);
  try {
    await untilReady(broker, child);
    const endpoint = await broker.rpc(
      webhooksCreate,
      { url, events: ['post.published'] },
      { orgId: 'org_bench', requestId: null },
    );
    const event = (n: number) => ({
      id: `post_${n}`,
      job_id: `post_${n}`,
      status: 'published' as const,
      account_ids: ['acc_1'],
      platforms: ['x' as const],
      text: `benchmark post ${n}`,
      scheduled_at: null,
      error_message: null,
      results: [
        {
          account_id: 'acc_1',
          provider: 'x' as const,
          status: 'published' as const,
          platform_post_id: `p_${n}`,
          platform_post_url: null,
          error_code: null,
          error_message: null,
        },
      ],
    });
    const body = JSON.stringify({
      id: endpoint.id,
      type: 'post.published',
      created_at: new Date().toISOString(),
      data: event(0),
    });

    // Baseline: the same number of POSTs of a same-sized body, `concurrency` at a time.
    let done = sink.expect(N);
    let started = performance.now();
    await plainLoop(url, body, N, concurrency);
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
      await Promise.all(
        Array.from({ length: Math.min(200, N - i) }, (_, k) =>
          broker.publish(postPublished, event(i + k), { orgId: 'org_bench', requestId: null }),
        ),
      );
    }
    const publishedMs = performance.now() - started;
    await done;
    const dispatchMs = performance.now() - started;
    await depth.stop();
    clearInterval(sampler);
    await stop(child);
    const statsAfter = await dbStats(database);
    const perDelivery = (key: keyof DbStats) => Math.round(((statsAfter[key] - statsBefore[key]) / N) * 100) / 100;

    return {
      bench: 'webhooks',
      params: {
        events: N,
        endpoints: 1,
        concurrency,
        ...(options.dispatcherMain ? { dispatcher: options.dispatcherMain } : {}),
        ...(options.nodeOptions ? { node_options: options.nodeOptions } : {}),
      },
      figures: [
        {
          name: `webhooks: ${N} events to one endpoint, published to received`,
          value: (N / dispatchMs) * 1000,
          unit: 'deliveries/s',
          baseline: (N / plainMs) * 1000,
          baselineName: `plain keep-alive POST loop, ${concurrency} in flight`,
          target: '>= 1,000 deliveries/s',
          detail: {
            seconds: dispatchMs / 1000,
            'published in s': publishedMs / 1000,
            'db transactions per delivery': perDelivery('xact_commit'),
            'rows inserted per delivery': perDelivery('tup_inserted'),
            'rows updated per delivery': perDelivery('tup_updated'),
            'most events waiting in the broker': depth.peak(),
          },
        },
        {
          name: 'RSS webhook-dispatcher',
          value: peakRss,
          unit: 'MB peak under webhooks',
          target: '< 150 MB',
          detail: { 'idle MB': idleRss },
        },
      ],
    };
  } finally {
    clearInterval(sampler);
    await stop(child);
    await broker.deleteTopology({ queues: serviceQueues(['webhook-dispatcher']) });
    await broker.close();
    sink.server.closeAllConnections();
    await new Promise((resolve) => sink.server.close(resolve));
    await dropDatabase(connectionConfig(TEST_DATABASE_URL, database));
  }
}
