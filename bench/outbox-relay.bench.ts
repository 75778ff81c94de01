// outbox-relay: the relay every service runs, through a plain pg pool (as the service runtime opens it)
// against the same relay through Prisma's raw path and against publishing directly, with delayed rows
// waiting in the table (bench/scenarios/outbox-relay.ts).
//   scripts/bench outbox-relay   (or: pnpm bench bench/outbox-relay)
//   BENCH_MESSAGES (20000), BENCH_DELAYED (20000)
import { benchOutboxRelay } from './scenarios/outbox-relay.ts';
import { describe as describeResult, recordResult } from './support/results.ts';

const messages = Number(process.env.BENCH_MESSAGES ?? 20_000);
const delayed = Number(process.env.BENCH_DELAYED ?? 20_000);

it(`relays ${messages} messages past ${delayed} delayed ones: plain pg vs Prisma vs publishing directly`, async () => {
  const result = await benchOutboxRelay({ messages, delayed });
  recordResult(result);
  console.log(describeResult(result));
});
