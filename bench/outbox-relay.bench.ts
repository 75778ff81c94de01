// How much the transactional outbox costs against publishing straight to RabbitMQ with confirms.
//   pnpm bench   (or: npx jest -c jest.bench.config.js bench/outbox-relay)
import path from 'node:path';
import { createEnvelope, systemProbe, type Envelope } from '@svc/contracts';
import { createPrismaAdapter, enqueueOutbox, OutboxRelay } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { createTestDatabase, TEST_AMQP_URL, uniqueNamespace } from '@svc/testing';
import { PrismaClient } from '../services/accounts/src/generated/prisma/client.ts';

const N = Number(process.env.BENCH_MESSAGES ?? 2000);
const logger = createLogger({ service: 'bench', level: 'silent' });

/** Starts a consumer and returns a promise of the moment it has seen `expected` messages. */
async function drain(broker: Broker, queue: string, expected: number): Promise<{ done: Promise<void> }> {
  let seen = 0;
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  await broker.consume({ queue, messages: [systemProbe], prefetch: 200, handlers: { 'system.probe.v1': async () => void (++seen === expected && resolve()) } });
  return { done };
}

it(`relays ${N} messages through the outbox vs publishing them directly`, async () => {
  const database = await createTestDatabase({ prefix: 'bench', serviceDir: path.resolve(__dirname, '../services/accounts') });
  const db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  const broker = await Broker.connect({ url: TEST_AMQP_URL, namespace: uniqueNamespace('bench'), service: 'bench', logger });
  const envelopes = (): Envelope[] => Array.from({ length: N }, (_, n) => createEnvelope(systemProbe, { n }, { orgId: 'o', requestId: null }));
  try {
    // Baseline: confirmed publishes, 100 in flight at a time, consumed by one consumer.
    const direct = await drain(broker, 'bench.direct', N);
    let started = performance.now();
    const batch = envelopes();
    for (let i = 0; i < N; i += 100) await Promise.all(batch.slice(i, i + 100).map((e) => broker.publishEnvelope(e)));
    await direct.done;
    const directMs = performance.now() - started;
    await broker.stopConsuming({ deadlineMs: 1000 });

    // Outbox: rows committed in transactions of 100, relayed (claim, publish with confirms, mark), consumed.
    const relayed = await drain(broker, 'bench.outbox', N);
    const relay = new OutboxRelay({ db, publisher: broker, logger, pollIntervalMs: 10, listenConnection: database.connection });
    started = performance.now();
    await relay.start();
    const rows = envelopes();
    for (let i = 0; i < N; i += 100) await db.$transaction((tx) => enqueueOutbox(tx, rows.slice(i, i + 100)));
    await relayed.done;
    const outboxMs = performance.now() - started;
    await relay.stop();

    const rate = (ms: number) => Math.round((N / ms) * 1000);
    console.log(
      [
        `messages: ${N}`,
        `direct publish + consume: ${directMs.toFixed(0)} ms (${rate(directMs)} msg/s)  [baseline]`,
        `outbox write + relay + consume: ${outboxMs.toFixed(0)} ms (${rate(outboxMs)} msg/s)`,
        `outbox / direct time ratio: ${(outboxMs / directMs).toFixed(2)}`,
      ].join('\n'),
    );
  } finally {
    await broker.deleteTopology();
    await broker.close();
    await db.$disconnect();
    await database.drop();
  }
});
