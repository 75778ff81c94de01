// fire: jobs scheduled for the same second; due -> queued per job (bench/scenarios/fire.ts).
//   scripts/bench fire   (or: pnpm build && pnpm bench bench/fire)
//   BENCH_FIRE_JOBS (1000), BENCH_FIRE_LEAD_S (60: every accept must finish before the due time),
//   BENCH_ACCEPT_CONCURRENCY (16), BENCH_PROFILE=<dir> writes the services' `--cpu-prof` profiles
//   there (BENCH_PROFILE_SERVICES=publisher,scheduler to choose; node scripts/profile-summary.mjs
//   <file>); SCHEDULER_BATCH_SIZE, SCHEDULER_JOBS_PER_DISPATCH and SCHEDULER_POLL_MS, when set, are
//   passed to the scheduler (A/B runs)
import { benchFire } from './scenarios/fire.ts';
import { profileOptionsFromEnv, startBenchSystem } from './support/bench-system.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const jobs = Number(process.env.BENCH_FIRE_JOBS ?? 1000);
const leadSeconds = Number(process.env.BENCH_FIRE_LEAD_S ?? 60);
const acceptConcurrency = Number(process.env.BENCH_ACCEPT_CONCURRENCY ?? 16);
const schedulerEnv = Object.fromEntries(
  ['SCHEDULER_BATCH_SIZE', 'SCHEDULER_JOBS_PER_DISPATCH', 'SCHEDULER_POLL_MS'].flatMap((name) =>
    process.env[name] === undefined ? [] : [[name, process.env[name]!]],
  ),
);

it(`fires ${jobs} jobs due the same second`, async () => {
  const system = await startBenchSystem({
    env: { SCHEDULE_MIN_LEAD_SECONDS: '0', ...schedulerEnv },
    ...profileOptionsFromEnv(),
  });
  try {
    const result = await benchFire(system, { jobs, leadSeconds, acceptConcurrency, timeoutMs: 300_000 });
    Object.assign(result.params, schedulerEnv);
    recordResult(result);
    console.log(describeResult(result));
  } finally {
    await system.close();
  }
}, 900_000);
