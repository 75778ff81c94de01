// The soak (with its fresh twin) and the scale-out at tiny sizes, so they keep working: each must come
// out with its figures, and every target posted exactly once. They start whole systems more than the
// other benchmarks' smoke, which CI runs (test/bench/benchmarks-smoke.int.test.ts); these run on demand,
// before a change to either benchmark or to what they read (the tables' sizes, the processes' CPU):
//   scripts/bench smoke
// Nothing is recorded: the figures of a tiny run are not the benchmarks'.
import { benchScaleOut } from './scenarios/scale-out.ts';
import { benchSoak } from './scenarios/soak.ts';
import { startBenchSystem, type BenchSystem } from './support/bench-system.ts';
import { expectFigures, SMOKE_POOLS, SMOKE_SYSTEM } from './support/smoke.ts';

describe('soak benchmark (smoke)', () => {
  let system: BenchSystem;

  beforeAll(async () => {
    system = await startBenchSystem(SMOKE_SYSTEM);
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  }, 60_000);

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
