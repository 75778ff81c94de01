// soak: steady publishing for BENCH_SOAK_MINUTES, the delivery rate at the end against the start, both
// read off a line fitted through every full window (no decay with use), and the sizes of the tables
// that grow with use (bench/scenarios/soak.ts).
//   scripts/bench soak   (or: pnpm build && pnpm bench bench/soak)
//   BENCH_SOAK_MINUTES (30), BENCH_SOAK_WINDOW_S (60), BENCH_SOAK_ACCOUNTS (10), BENCH_SOAK_BACKLOG (100),
//   BENCH_ACCEPT_CONCURRENCY (8), BENCH_SOAK_TWIN_PAIRS (6; 0: no twin), BENCH_SOAK_TWIN_RAMP_S (10), BENCH_SERVICE_ENV="NAME=value,..." (every service's extra environment,
//   recorded with the result), BENCH_PROFILE=<dir>: the services' --cpu-prof profiles go there
//   (BENCH_PROFILE_SERVICES to choose; node scripts/profile-summary.mjs summarizes them).
import { benchSoak } from './scenarios/soak.ts';
import { envParam, profileOptionsFromEnv, serviceEnvFromEnv, startBenchSystem } from './support/bench-system.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const windowSeconds = Number(process.env.BENCH_SOAK_WINDOW_S ?? 60);
const twinPairs = Number(process.env.BENCH_SOAK_TWIN_PAIRS ?? 6);

it(`publishes steadily for ${minutes} min without the delivery rate decaying`, async () => {
  // Scheduled jobs are due two seconds ahead: the minimum lead is lifted, as in the fire benchmark.
  const env = { SCHEDULE_MIN_LEAD_SECONDS: '0', ...serviceEnvFromEnv() };
  const system = await startBenchSystem({ ...profileOptionsFromEnv(), env });
  try {
    const soaked = await benchSoak(system, {
      minutes,
      windowSeconds,
      accounts: Number(process.env.BENCH_SOAK_ACCOUNTS ?? 10),
      backlog: Number(process.env.BENCH_SOAK_BACKLOG ?? 100),
      acceptConcurrency: Number(process.env.BENCH_ACCEPT_CONCURRENCY ?? 8),
      // Then the aged system against a fresh one in turn (scenarios/soak-twin.ts), same windows.
      ...(twinPairs === 0 ? {} : {
        twin: { start: () => startBenchSystem({ env }), pairs: twinPairs, windowSeconds, rampSeconds: Number(process.env.BENCH_SOAK_TWIN_RAMP_S ?? 10), settleSeconds: 12 },
      }),
    });
    const result = { ...soaked, params: { ...soaked.params, env: envParam(env) } };
    recordResult(result);
    console.log(describeResult(result));
  } finally {
    await system.close();
  }
}, (minutes * 60 + twinPairs * 2 * (windowSeconds + 40) + 1200) * 1000);
