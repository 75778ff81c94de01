// Operator tool: moves parked messages of one work queue back to it (after the cause is fixed).
//   node scripts/requeue-parked.mjs <queue> [limit]      e.g. node scripts/requeue-parked.mjs publisher.work
// Reads AMQP_URL and AMQP_NAMESPACE like the services; needs a build (pnpm build).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Broker } = require('../libs/messaging/dist/index.js');
const { createLogger } = require('../libs/logger/dist/index.js');

const [queue, limitArg] = process.argv.slice(2);
if (!queue) {
  console.error(
    'usage: node scripts/requeue-parked.mjs <queue> [limit]   (queue without namespace, e.g. publisher.work)',
  );
  process.exit(2);
}
const limit = limitArg === undefined ? 1000 : Number(limitArg);
if (!Number.isInteger(limit) || limit < 1) {
  console.error('limit must be a positive integer');
  process.exit(2);
}

const broker = await Broker.connect({
  url: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
  namespace: process.env.AMQP_NAMESPACE ?? '',
  service: 'operator',
  logger: createLogger({ service: 'requeue-parked', level: process.env.LOG_LEVEL ?? 'warn' }),
});
try {
  const moved = await broker.requeueParked(queue, limit);
  console.log(`moved ${moved} message(s) from ${broker.parkingQueueName(queue)} back to ${broker.queueName(queue)}`);
} finally {
  await broker.close();
}
