import os from 'node:os';
import { benchAccept } from '../../bench/scenarios/accept.ts';
import { benchAnalytics } from '../../bench/scenarios/analytics.ts';
import { benchDeliver } from '../../bench/scenarios/deliver.ts';
import { benchFire } from '../../bench/scenarios/fire.ts';
import { benchHistory } from '../../bench/scenarios/history.ts';
import { benchMediaIngest } from '../../bench/scenarios/media-ingest.ts';
import { benchOutboxRelay } from '../../bench/scenarios/outbox-relay.ts';
import { benchScaleOut } from '../../bench/scenarios/scale-out.ts';
import { benchSoak } from '../../bench/scenarios/soak.ts';
import { benchWebhooks } from '../../bench/scenarios/webhooks.ts';
import { startBenchSystem, type BenchSystem } from '../../bench/support/bench-system.ts';
import type { BenchResult } from '../../bench/support/results.ts';

/**
 * The throughput benchmarks (scripts/bench) at tiny sizes, so they keep working: each must come out
 * with its figures. Nothing here is about time; the deliver scenario still checks exactly-once on the
 * sandbox's records and throws otherwise.
 */
const expectFigures = (result: BenchResult) => {
  expect(result.figures.length).toBeGreaterThan(0);
  for (const figure of result.figures) {
    expect({ name: figure.name, finite: Number.isFinite(figure.value) && figure.value > 0 }).toEqual({
      name: figure.name,
      finite: true,
    });
    if (figure.baseline !== undefined) expect(figure.baseline).toBeGreaterThan(0);
  }
};

/**
 * Small database pools: the tiny loads need few connections, and a full system of seven services
 * at its default pools (up to ~100 connections under load) beside another suite's system ran past
 * PostgreSQL's max_connections (100 here) once ("sorry, too many clients already").
 */
const SMOKE_POOLS = {
  DB_POOL_MAX: '3',
  DELIVERY_DB_POOL_SIZE: '6',
  ACCEPT_DB_POOL_SIZE: '2',
  WEBHOOK_DB_POOL_SIZE: '3',
  ANALYTICS_DB_POOL_SIZE: '2',
};

/**
 * The publisher's roles apart (BENCH_PUBLISHER_ROLES=apart: an accepting and a delivering process),
 * so that mode keeps working too; the scale-out smoke runs the default, one process.
 */
const SMOKE_SYSTEM = { env: { ...SMOKE_POOLS, SCHEDULE_MIN_LEAD_SECONDS: '0' }, publisherRoles: 'apart' } as const;

describe('throughput benchmarks (smoke)', () => {
  let system: BenchSystem;

  beforeAll(async () => {
    system = await startBenchSystem(SMOKE_SYSTEM);
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  }, 60_000);

  it('accept: figures for the gateway and the bare server, with X answering at once and late', async () => {
    // 5 s, not 1: on a loaded CI machine one accept can take over a second, and a run that completes
    // no request has no figure.
    const result = await benchAccept(system, { connections: 2, durationSeconds: 5, networkLatencyMs: 50 });
    expectFigures(result);
    expect(result.figures.map((figure) => figure.name)).toEqual([
      'accept: POST /v1/publish',
      'accept: POST /v1/publish, X answering in 50 ms',
    ]);
    for (const figure of result.figures) expect(figure.detail).toMatchObject({ errors: 0 });
  }, 90_000);

  it('deliver: every target posted exactly once, with a rate and the RSS of every service', async () => {
    const result = await benchDeliver(system, { jobs: 3, accounts: 2, acceptConcurrency: 2, timeoutMs: 60_000 });
    expectFigures(result);
    expect(result.figures.map((figure) => figure.name)).toEqual(
      expect.arrayContaining([
        'RSS gateway',
        'RSS accounts',
        'RSS publisher',
        'RSS publisher-deliver',
        'RSS scheduler',
      ]),
    );
    // The delivering process runs at a lower priority than the accepting one.
    expect(os.getPriority(system.processes.get('publisher-deliver')!.child.pid!)).toBe(10);
    expect(os.getPriority(system.processes.get('publisher')!.child.pid!)).toBe(0);
  }, 120_000);

  it('fire: lateness of every job due the same second', async () => {
    const result = await benchFire(system, { jobs: 5, leadSeconds: 3, acceptConcurrency: 5, timeoutMs: 60_000 });
    expect(result.figures[0]!.detail).toHaveProperty('p50 ms');
    expect(Number.isFinite(result.figures[0]!.value)).toBe(true);
  }, 120_000);

  it('media ingest: a rate of uploads against the bare server writing them to disk', async () => {
    const result = await benchMediaIngest(system, { uploads: 3, concurrency: 1 });
    expectFigures(result);
    expect(result.figures[0]!.detail).toHaveProperty(['png p50 ms']);
  }, 120_000);

  it('soak: a rate per window, the table sizes, every target posted exactly once', async () => {
    const twin = {
      start: () => startBenchSystem(SMOKE_SYSTEM),
      pairs: 1,
      windowSeconds: 2,
      rampSeconds: 1,
      settleSeconds: 0,
    };
    const result = await benchSoak(system, {
      minutes: 0.1,
      windowSeconds: 2,
      accounts: 2,
      backlog: 4,
      acceptConcurrency: 2,
      twin,
    });
    expectFigures(result);
    expect(result.figures[0]!.detail).toHaveProperty(['publisher.outbox_messages end']);
    expect(result.figures[0]!.detail).toHaveProperty(['publisher cpu ms/delivery end']);
    // PostgreSQL's CPU counts its exited backends too, and the cores' speed is sampled beside the run.
    expect(result.figures[0]!.detail!['postgres cpu ms/delivery end']).toBeGreaterThan(0);
    expect(result.figures[0]!.detail!['speed probe cpu ms end']).toBeGreaterThan(0);
    expect(result.figures[0]!.detail!['memory probe ns/read end']).toBeGreaterThan(0);
    // The server's buffer traffic per delivery, and the cache size it ran with.
    expect(result.figures[0]!.detail!['buffers allocated buffers/delivery end']).toBeGreaterThanOrEqual(0);
    expect(result.figures[0]!.detail!['shared buffers']).toMatch(/B$/);
    // How often old pages cost a full-page image in the WAL again.
    expect(result.figures[0]!.detail!['checkpoint timeout']).toMatch(/^\d+(s|min|h)$/);
    expect(result.figures[0]!.detail!['max wal size']).toMatch(/B$/);
    // The verdict's line through the windows, and the vacuum settings and backlog it depends on.
    expect(result.figures[0]!.detail!['rate trend deliveries/s per window']).toEqual(expect.any(Number));
    expect(result.figures[0]!.detail!['autovacuum naptime']).toMatch(/^\d+(s|min)$/);
    expect(result.figures[0]!.detail!['publisher.deliveries dead tuples end']).toBeGreaterThanOrEqual(0);
    expect(result.figures[0]!.detail!['WAL KB buffers/delivery end']).toBeGreaterThan(0);
    // The largest relations at the end, the publisher's deliveries among them.
    expect(result.figures[0]!.detail!['publisher.deliveries MB']).toBeGreaterThan(0);
    // The aged system against a fresh twin in turn: a window each (expectFigures checked both rates).
    expect(result.figures[1]!.detail).toMatchObject({ 'window order': 'twin aged', 'twin jobs': expect.any(Number) });
    expect(result.figures[1]!.detail!['twin jobs']).toBeGreaterThan(0);
    expect(result.figures[1]!.detail!['cpu ms/delivery by process aged']).toMatch(/publisher \d+\.\d\d/);
    // Statement execution when the server loads pg_stat_statements, else a note saying it was not measured.
    const measured = 'statement execution ms/delivery end' in result.figures[0]!.detail!;
    expect(
      result.figures[0]!.detail![measured ? 'statement execution ms/delivery end' : 'statement execution'],
    ).toEqual(measured ? expect.any(Number) : expect.stringContaining('not measured'));
  }, 120_000);
});

// Starts its own systems: one of each process, then two publishers and two gateways.
describe('scale-out benchmark (smoke)', () => {
  it('accept and deliver with one and with two publishers and gateways, every replica running', async () => {
    const result = await benchScaleOut({
      replicas: 2,
      accept: { connections: 2, durationSeconds: 3 },
      deliver: { jobs: 4, accounts: 2, acceptConcurrency: 2, timeoutMs: 60_000 },
      env: SMOKE_POOLS,
      acceptEnv: SMOKE_POOLS,
      latency: { ms: 50, jobs: 2 },
    });
    expectFigures(result);
    // What shared the cores with the accepts, in both topologies.
    expect(result.figures[0]!.detail).toMatchObject({
      'deliveries finished meanwhile': expect.any(Number),
      'baseline deliveries finished meanwhile': expect.any(Number),
      'publisher cpu ms/req': expect.any(Number),
    });
    expect(Object.values(result.figures[0]!.detail!).every((value) => Number.isFinite(value))).toBe(true);
    expect(result.figures[1]!.detail).toMatchObject({
      'peak MB publisher-2': expect.any(Number),
      'peak MB gateway-2': expect.any(Number),
    });
    expect(result.figures[1]!.detail!['peak MB publisher-2']).toBeGreaterThan(0);
    // The accept path again with X answering 50 ms late, then the deliveries bound by their slots.
    expect(result.figures.slice(2).map((figure) => figure.name)).toEqual([
      expect.stringMatching(/^scale-out: accept .*X answering in 50 ms/),
      expect.stringMatching(/^scale-out: deliver .*X answering in 50 ms/),
    ]);
    expect(result.figures[2]!.detail).toMatchObject({
      'publisher cpu ms/req': expect.any(Number),
      'baseline publisher cpu ms/req': expect.any(Number),
    });
  }, 300_000);
});

// These start their own systems (the dispatcher as a built process; analytics and the relay in this process).
describe('webhooks, analytics, history and outbox relay benchmarks (smoke)', () => {
  it('history: buffers per call of every delivery-path operation, beside a small and a larger history', async () => {
    const result = await benchHistory({ smallJobs: 20, largeJobs: 200, accounts: 3, samples: 2 });
    // expectFigures: every operation ran its statements under EXPLAIN and touched pages, both times.
    expectFigures(result);
    expect(result.figures).toHaveLength(8);
    expect(result.figures.every((figure) => figure.detail!.reads !== '-')).toBe(true);
  }, 120_000);

  it('outbox relay: a rate on plain pg against Prisma and against publishing directly', async () => {
    const result = await benchOutboxRelay({ messages: 200, delayed: 100 });
    expectFigures(result);
    expect(result.figures).toHaveLength(2);
  }, 60_000);

  it("webhooks: a rate against the plain POST loop, and the dispatcher's RSS", async () => {
    const result = await benchWebhooks({ events: 20, concurrency: 4 });
    expectFigures(result);
    expect(result.figures.map((figure) => figure.name)).toEqual([
      'webhooks: 20 events to one endpoint, published to received',
      'RSS webhook-dispatcher',
    ]);
    expect(result.figures[1]!.detail!['idle MB']).toBeGreaterThan(0);
  }, 180_000);

  it("analytics: list latencies against raw pg, and the background sync within X's limit", async () => {
    const { result } = await benchAnalytics({ rows: 2000, samples: 5, syncAccounts: 2, syncPostsPerAccount: 20 });
    expectFigures(result);
    expect(result.figures).toHaveLength(3);
    expect(result.figures[2]!.detail).toMatchObject({ 'rows synced': 40, 'accounts paused': 0 });
  }, 180_000);
});
