// analytics: GET /v1/analytics/posts?limit=100 over 100,000 cached rows of one organization (first and
// deep page) vs the same statements with raw pg; then the background sync of 10,000 X rows against
// the sandbox's advertised limits (bench/scenarios/analytics.ts).
//   scripts/bench analytics   (or: pnpm bench bench/analytics)
//   BENCH_ANALYTICS_ROWS (100000), BENCH_SAMPLES (300), BENCH_SYNC_ACCOUNTS (10), BENCH_SYNC_POSTS (1000 per account)
import { benchAnalytics } from './scenarios/analytics.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const rows = Number(process.env.BENCH_ANALYTICS_ROWS ?? 100_000);
const samples = Number(process.env.BENCH_SAMPLES ?? 300);
const syncAccounts = Number(process.env.BENCH_SYNC_ACCOUNTS ?? 10);
const syncPostsPerAccount = Number(process.env.BENCH_SYNC_POSTS ?? 1000);

it(`analytics: list over ${rows} rows vs raw pg, background sync of ${syncAccounts * syncPostsPerAccount} X rows`, async () => {
  const { result, lines } = await benchAnalytics({ rows, samples, syncAccounts, syncPostsPerAccount });
  recordResult(result);
  console.log([...lines, describeResult(result)].join('\n'));
}, 900_000);
