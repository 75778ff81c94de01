// webhooks: events end to end through the dispatcher vs a plain POST loop to the same receiver, and
// the dispatcher's RSS (bench/scenarios/webhooks.ts).
//   scripts/bench webhooks   (or: pnpm build && pnpm bench bench/webhooks)
//   BENCH_EVENTS (10000), BENCH_CONCURRENCY (32),
//   BENCH_DISPATCHER: another build's main.js (an A/B against an older version in the same conditions),
//   BENCH_DISPATCHER_NODE_OPTIONS: node flags for the dispatcher alone (e.g. heap sizes),
//   BENCH_PROFILE=<dir>: the dispatcher's --cpu-prof profile goes there.
import { benchWebhooks } from './scenarios/webhooks.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const events = Number(process.env.BENCH_EVENTS ?? 10_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);

it(`delivers ${events} webhook events vs a plain POST loop (concurrency ${concurrency})`, async () => {
  const result = await benchWebhooks({
    events,
    concurrency,
    ...(process.env.BENCH_DISPATCHER ? { dispatcherMain: process.env.BENCH_DISPATCHER } : {}),
    ...(process.env.BENCH_DISPATCHER_NODE_OPTIONS ? { nodeOptions: process.env.BENCH_DISPATCHER_NODE_OPTIONS } : {}),
    ...(process.env.BENCH_PROFILE ? { profileDir: process.env.BENCH_PROFILE } : {}),
  });
  recordResult(result);
  console.log(describeResult(result));
});
