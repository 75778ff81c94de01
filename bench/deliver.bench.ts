// deliver: jobs x X accounts accepted, delivered to the sandbox and counted there (exactly once), vs
// raw amqplib confirm + consume of the same count; RSS of every service idle and at peak
// (bench/scenarios/deliver.ts).
//   scripts/bench deliver   (or: pnpm build && pnpm bench bench/deliver)
//   BENCH_DELIVER_JOBS (200), BENCH_DELIVER_ACCOUNTS (50), BENCH_ACCEPT_CONCURRENCY (16),
//   BENCH_DELIVER_TIMEOUT_S (1800), BENCH_PROFILE=<dir>: the services' --cpu-prof profiles go there (BENCH_PROFILE_SERVICES to choose),
//   BENCH_SERVICE_ENV="NAME=value,..." extra environment for every service (e.g. DELIVERY_CREDENTIALS_CACHE_MS=0).
//   DELIVERY_ORG_CONCURRENCY is 40 unless set there: every job of the benchmark belongs to one
//   organization, and its limit (5 by default) caps one organization's deliveries in flight, which a
//   platform's many organizations are not (docs/performance.md, "One organization's limit").
import { benchDeliver } from './scenarios/deliver.ts';
import { envParam, oneOrganizationEnv, profileOptionsFromEnv, startBenchSystem } from './support/bench-system.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const jobs = Number(process.env.BENCH_DELIVER_JOBS ?? 200);
const accounts = Number(process.env.BENCH_DELIVER_ACCOUNTS ?? 50);
const acceptConcurrency = Number(process.env.BENCH_ACCEPT_CONCURRENCY ?? 16);
const timeoutMs = Number(process.env.BENCH_DELIVER_TIMEOUT_S ?? 1800) * 1000;

const env = oneOrganizationEnv();

it(
  `delivers ${jobs} jobs x ${accounts} X accounts exactly once vs raw amqplib`,
  async () => {
    const system = await startBenchSystem({ ...profileOptionsFromEnv(), env });
    try {
      const delivered = await benchDeliver(system, { jobs, accounts, acceptConcurrency, timeoutMs });
      const result = { ...delivered, params: { ...delivered.params, env: envParam(env) } };
      recordResult(result);
      console.log(describeResult(result));
    } finally {
      await system.close();
    }
  },
  timeoutMs + 600_000,
);
