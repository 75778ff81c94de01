// accept: POST /v1/publish under autocannon vs a bare node:http 202 server (bench/scenarios/accept.ts).
//   scripts/bench accept   (or: pnpm build && pnpm bench bench/accept)
//   BENCH_ACCEPT_CONNECTIONS (64), BENCH_ACCEPT_SECONDS (20),
//   BENCH_ACCEPT_X_LATENCY_MS (300: the second measurement, with X answering each post that late, as
//   a real network does; 0 leaves it out),
//   BENCH_PROFILE=<dir> writes a --cpu-prof profile of each service there
//   (BENCH_PROFILE_SERVICES=gateway,publisher to pick some),
//   BENCH_SERVICE_ENV="NAME=value,..." extra environment for every service
import { benchAccept } from './scenarios/accept.ts';
import { profileOptionsFromEnv, serviceEnvFromEnv, startBenchSystem } from './support/bench-system.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const connections = Number(process.env.BENCH_ACCEPT_CONNECTIONS ?? 64);
const durationSeconds = Number(process.env.BENCH_ACCEPT_SECONDS ?? 20);
const networkLatencyMs = Number(process.env.BENCH_ACCEPT_X_LATENCY_MS ?? 300);

it(`accepts POST /v1/publish with ${connections} connections for ${durationSeconds} s vs a bare 202 server`, async () => {
  const system = await startBenchSystem({ ...profileOptionsFromEnv(), env: serviceEnvFromEnv() });
  try {
    const result = await benchAccept(system, {
      connections,
      durationSeconds,
      ...(networkLatencyMs > 0 ? { networkLatencyMs } : {}),
    });
    recordResult(result);
    console.log(describeResult(result));
  } finally {
    await system.close();
  }
}, 600_000);
