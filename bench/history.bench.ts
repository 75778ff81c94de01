// history: the publisher's hot statements (grouped read, claim, outcome, wake, job finish, sweep)
// beside a small and a large history of finished jobs, same run: buffers per call and their ratio
// (bench/scenarios/history.ts).
//   scripts/bench history   (or: pnpm bench bench/history)
//   BENCH_HISTORY_SMALL_JOBS (2000), BENCH_HISTORY_JOBS (200000), BENCH_HISTORY_ACCOUNTS (10), BENCH_SAMPLES (20)
import { benchHistory } from './scenarios/history.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const smallJobs = Number(process.env.BENCH_HISTORY_SMALL_JOBS ?? 2_000);
const largeJobs = Number(process.env.BENCH_HISTORY_JOBS ?? 200_000);
const accounts = Number(process.env.BENCH_HISTORY_ACCOUNTS ?? 10);
const samples = Number(process.env.BENCH_SAMPLES ?? 20);

it(`history: the delivery path's statements beside ${smallJobs} and ${largeJobs} finished jobs of ${accounts} deliveries`, async () => {
  const result = await benchHistory({ smallJobs, largeJobs, accounts, samples });
  recordResult(result);
  console.log(describeResult(result));
}, 1_800_000);
