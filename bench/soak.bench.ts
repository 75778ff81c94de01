// soak: steady publishing for BENCH_SOAK_MINUTES, the delivery rate at the end against the start, both
// read off a line fitted through every full window (no decay with use), and the sizes of the tables
// that grow with use (bench/scenarios/soak.ts).
//   scripts/bench soak   (or: pnpm build && pnpm bench bench/soak)
//   BENCH_SOAK_MINUTES (30), BENCH_SOAK_WINDOW_S (60), BENCH_SOAK_ACCOUNTS (10), BENCH_SOAK_BACKLOG (100),
//   BENCH_ACCEPT_CONCURRENCY (8), BENCH_SOAK_TWIN_PAIRS (6; 0: no twin), BENCH_SOAK_TWIN_RAMP_S (10),
//   BENCH_SOAK_IDLE_S (30: the speed probe alone on the machine before the system starts and after it stops), BENCH_SERVICE_ENV="NAME=value,..." (every service's extra environment,
//   recorded with the result), BENCH_PROFILE=<dir>: the services' --cpu-prof profiles go there
//   (BENCH_PROFILE_SERVICES to choose; node scripts/profile-summary.mjs summarizes them).
import { benchSoak } from './scenarios/soak.ts';
import { envParam, profileOptionsFromEnv, serviceEnvFromEnv, startBenchSystem } from './support/bench-system.ts';
import { idleMachineSpeed } from './support/cpu-speed.ts';
import { describe as describeResult, recordResult, type BenchResult } from './support/results.ts';

const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const windowSeconds = Number(process.env.BENCH_SOAK_WINDOW_S ?? 60);
const twinPairs = Number(process.env.BENCH_SOAK_TWIN_PAIRS ?? 6);
const idleSeconds = Number(process.env.BENCH_SOAK_IDLE_S ?? 30);

it(
  `publishes steadily for ${minutes} min without the delivery rate decaying`,
  async () => {
    // Scheduled jobs are due two seconds ahead: the minimum lead is lifted, as in the fire benchmark.
    const env = { SCHEDULE_MIN_LEAD_SECONDS: '0', ...serviceEnvFromEnv() };
    // The machine alone before and after: whether it got slower meanwhile, whatever the system did.
    const idleBefore = await idleMachineSpeed(idleSeconds);
    const system = await startBenchSystem({ ...profileOptionsFromEnv(), env });
    let soaked: BenchResult;
    try {
      soaked = await benchSoak(system, {
        minutes,
        windowSeconds,
        accounts: Number(process.env.BENCH_SOAK_ACCOUNTS ?? 10),
        backlog: Number(process.env.BENCH_SOAK_BACKLOG ?? 100),
        acceptConcurrency: Number(process.env.BENCH_ACCEPT_CONCURRENCY ?? 8),
        // Then the aged system against a fresh one in turn (scenarios/soak-twin.ts), same windows.
        ...(twinPairs === 0
          ? {}
          : {
              twin: {
                start: () => startBenchSystem({ env }),
                pairs: twinPairs,
                windowSeconds,
                rampSeconds: Number(process.env.BENCH_SOAK_TWIN_RAMP_S ?? 10),
                settleSeconds: 12,
              },
            }),
      });
    } finally {
      await system.close();
    }
    const idleAfter = await idleMachineSpeed(idleSeconds);
    const [line, ...others] = soaked.figures;
    const idle = {
      'idle machine speed probe cpu ms before': idleBefore.cpuMs,
      'idle machine speed probe cpu ms after': idleAfter.cpuMs,
      'idle machine memory probe ns/read before': Math.round(idleBefore.memNs * 10) / 10,
      'idle machine memory probe ns/read after': Math.round(idleAfter.memNs * 10) / 10,
    };
    const result = {
      ...soaked,
      figures: [{ ...line!, detail: { ...line!.detail, ...idle } }, ...others],
      params: { ...soaked.params, env: envParam(env) },
    };
    recordResult(result);
    console.log(describeResult(result));
  },
  (minutes * 60 + twinPairs * 2 * (windowSeconds + 40) + 2 * idleSeconds + 1200) * 1000,
);
