// scale-out: accept and deliver on 1 publisher + 1 gateway, then on BENCH_SCALE_REPLICAS (2) of each,
// in the same run; the figure is the throughput with replicas against the single processes
// (bench/scenarios/scale-out.ts).
//   scripts/bench scale-out   (or: pnpm build && pnpm bench bench/scale-out)
//   BENCH_SCALE_REPLICAS (2), BENCH_ACCEPT_CONNECTIONS (64), BENCH_ACCEPT_SECONDS (10),
//   BENCH_DELIVER_JOBS (100), BENCH_DELIVER_ACCOUNTS (50), BENCH_ACCEPT_CONCURRENCY (16),
//   BENCH_SERVICE_ENV="NAME=value,..." (DELIVERY_ORG_CONCURRENCY is 40 unless set there: see the scenario),
//   BENCH_SCALE_LATENCY_MS (300), BENCH_SCALE_LATENCY_JOBS (40): the deliver run again with X answering that late,
//   and the accept run measured a second time with X answering that late
import { benchScaleOut } from './scenarios/scale-out.ts';
import { oneOrganizationEnv, serviceEnvFromEnv } from './support/bench-system.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const replicas = Number(process.env.BENCH_SCALE_REPLICAS ?? 2);

it(`accepts and delivers faster with ${replicas} publishers and ${replicas} gateways than with one of each`, async () => {
  const result = await benchScaleOut({
    replicas,
    accept: {
      connections: Number(process.env.BENCH_ACCEPT_CONNECTIONS ?? 64),
      durationSeconds: Number(process.env.BENCH_ACCEPT_SECONDS ?? 10),
    },
    deliver: {
      jobs: Number(process.env.BENCH_DELIVER_JOBS ?? 100),
      accounts: Number(process.env.BENCH_DELIVER_ACCOUNTS ?? 50),
      acceptConcurrency: Number(process.env.BENCH_ACCEPT_CONCURRENCY ?? 16),
      timeoutMs: 1_200_000,
    },
    // One organization's cap raised to both publishers' slots (2 x DELIVERY_CONCURRENCY), so the
    // measure is the processes, not one tenant's cap.
    env: oneOrganizationEnv(),
    // The accept runs as the accept benchmark has them: one organization at its default limit, so
    // replicas change the accept path, not how many deliveries run beside it. With 40, a 10 s run
    // with X at 300 ms had 511 deliveries beside it on one publisher and 805 on two, against 147 and
    // 130 at the default (docs/performance.md, "Scale-out").
    acceptEnv: serviceEnvFromEnv(),
    // X answering each create call in 300 ms (real networks: 0.2-1 s), fewer jobs: a publisher's 20 slots clear ~66/s there.
    latency: {
      ms: Number(process.env.BENCH_SCALE_LATENCY_MS ?? 300),
      jobs: Number(process.env.BENCH_SCALE_LATENCY_JOBS ?? 40),
    },
  });
  recordResult(result);
  console.log(describeResult(result));
}, 3_600_000);
