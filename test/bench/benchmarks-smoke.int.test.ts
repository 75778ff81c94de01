import os from 'node:os';
import { benchAccept } from '../../bench/scenarios/accept.ts';
import { benchAnalytics } from '../../bench/scenarios/analytics.ts';
import { benchDeliver } from '../../bench/scenarios/deliver.ts';
import { benchFire } from '../../bench/scenarios/fire.ts';
import { benchHistory } from '../../bench/scenarios/history.ts';
import { benchMediaIngest } from '../../bench/scenarios/media-ingest.ts';
import { benchOutboxRelay } from '../../bench/scenarios/outbox-relay.ts';
import { benchWebhooks } from '../../bench/scenarios/webhooks.ts';
import { startBenchSystem, type BenchSystem } from '../../bench/support/bench-system.ts';
import { expectFigures, SMOKE_SYSTEM } from '../../bench/support/smoke.ts';

/**
 * The throughput benchmarks (scripts/bench) at tiny sizes, so they keep working: each must come out
 * with its figures. Nothing here is about time; the deliver scenario still checks exactly-once on the
 * sandbox's records and throws otherwise. The soak and the scale-out, which start whole systems more,
 * have their smoke in bench/smoke.bench.ts (`scripts/bench smoke`), not here.
 */
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
