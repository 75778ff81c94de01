// What the benchmarks' smokes share (test/bench/benchmarks-smoke.int.test.ts in CI, bench/smoke.bench.ts
// on demand): every figure present and positive, and small systems.
import type { BenchResult } from './results.ts';

/** Every figure of a tiny run is there, finite and positive (a baseline too): nothing about time. */
export const expectFigures = (result: BenchResult) => {
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
export const SMOKE_POOLS = {
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
export const SMOKE_SYSTEM = {
  env: { ...SMOKE_POOLS, SCHEDULE_MIN_LEAD_SECONDS: '0' },
  publisherRoles: 'apart',
} as const;
