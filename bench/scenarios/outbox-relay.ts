// The outbox relay every service runs (libs/db/src/outbox-relay.ts), on its own: messages committed to
// the outbox in transactions of 100, relayed to RabbitMQ with confirms and consumed, while delayed rows
// (deferrals, retries, later lookups) wait in the same table. Run twice in the same run, with the
// relay's statements through Prisma's raw path and through a plain pg pool (what the service runtime
// gives it, with the same session settings), against publishing the same messages straight to the broker.
import path from 'node:path';
import { createEnvelope, systemProbe, type Envelope } from '@svc/contracts';
import {
  createPgRawSql,
  createPrismaAdapter,
  enqueueOutbox,
  OutboxRelay,
  RELAY_SESSION_SETTINGS,
  type PgConnectionConfig,
  type RawSql,
} from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { createTestDatabase, TEST_AMQP_URL, uniqueNamespace } from '@svc/testing';
import { PrismaClient } from '../../services/accounts/src/generated/prisma/client.ts';
import { machineCpu } from '../support/machine-cpu.ts';
import type { BenchResult } from '../support/results.ts';

export interface OutboxRelayBenchOptions {
  messages: number;
  /** Rows due an hour from now, in the table for the whole run. */
  delayed: number;
}

interface Pass {
  ms: number;
  /** CPU of this process (writes, relay, consumer) and of PostgreSQL, per message. */
  processCpuMs: number;
  postgresCpuMs: number;
}

const logger = createLogger({ service: 'bench', level: 'silent' });

export async function benchOutboxRelay(options: OutboxRelayBenchOptions): Promise<BenchResult> {
  const { messages } = options;
  const database = await createTestDatabase({
    prefix: 'bench_relay',
    serviceDir: path.resolve(__dirname, '../../services/accounts'),
  });
  const prisma = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  const pg = createPgRawSql(database.connection, {
    max: 2,
    onIdleError: () => undefined,
    settings: RELAY_SESSION_SETTINGS,
  });
  const broker = await Broker.connect({
    url: TEST_AMQP_URL,
    namespace: uniqueNamespace('bench'),
    service: 'bench',
    logger,
  });
  try {
    await prisma.$executeRawUnsafe(
      `INSERT INTO outbox_messages (id, type, envelope, available_at)
       SELECT id, 'system.probe.v1', jsonb_build_object('message_id', id::text), now() + interval '1 hour' + i * interval '1 millisecond'
         FROM (SELECT gen_random_uuid() AS id, i FROM generate_series(1, $1::int) AS i) AS rows`,
      options.delayed,
    );
    await prisma.$executeRawUnsafe('VACUUM ANALYZE outbox_messages');
    const envelopes = (): Envelope[] =>
      Array.from({ length: messages }, (_, n) => createEnvelope(systemProbe, { n }, { orgId: 'o', requestId: null }));

    const direct = await measure(async () => {
      const consumer = await drain(broker, 'bench.direct', messages);
      const batch = envelopes();
      for (let i = 0; i < messages; i += 100)
        await Promise.all(batch.slice(i, i + 100).map((envelope) => broker.publishEnvelope(envelope)));
      await consumer.done;
    }, messages);
    await broker.stopConsuming({ deadlineMs: 1000 });
    const throughPrisma = await relayPass(broker, prisma, prisma, database.connection, envelopes(), 'bench.prisma');
    const throughPg = await relayPass(broker, pg, prisma, database.connection, envelopes(), 'bench.pg');

    const rate = (pass: Pass) => (messages / pass.ms) * 1000;
    // Per 1,000 messages: per message, the figures round to nothing.
    const detail = (pass: Pass, prefix = '') => ({
      [`${prefix}process cpu ms/1000 messages`]: Math.round(pass.processCpuMs * 1000),
      [`${prefix}postgres cpu ms/1000 messages`]: Math.round(pass.postgresCpuMs * 1000),
    });
    return {
      bench: 'outbox-relay',
      params: { messages, delayed: options.delayed },
      figures: [
        {
          name: `outbox relay on plain pg: ${messages} messages written, relayed, consumed`,
          value: rate(throughPg),
          unit: 'msg/s',
          baseline: rate(throughPrisma),
          baselineName: 'the same relay through Prisma, same run',
          detail: {
            ...detail(throughPg),
            ...detail(throughPrisma, 'through Prisma: '),
            'delayed rows waiting': options.delayed,
          },
        },
        {
          name: `outbox relay on plain pg vs publishing directly`,
          value: rate(throughPg),
          unit: 'msg/s',
          baseline: rate(direct),
          baselineName: 'confirmed publishes, 100 in flight, same consumer',
          detail: detail(direct, 'direct: '),
        },
      ],
    };
  } finally {
    await broker.deleteTopology();
    await broker.close();
    await Promise.all([prisma.$disconnect(), pg.end()]);
    await database.drop();
  }
}

/** Writes the messages in transactions of 100 (through Prisma, the same for both) while `relayDb`'s relay moves them. */
async function relayPass(
  broker: Broker,
  relayDb: RawSql,
  writer: PrismaClient,
  connection: PgConnectionConfig,
  rows: Envelope[],
  queue: string,
): Promise<Pass> {
  const relay = new OutboxRelay({
    db: relayDb,
    publisher: broker,
    logger,
    pollIntervalMs: 10,
    listenConnection: connection,
  });
  const pass = await measure(async () => {
    const consumer = await drain(broker, queue, rows.length);
    await relay.start();
    for (let i = 0; i < rows.length; i += 100)
      await writer.$transaction((tx) => enqueueOutbox(tx, rows.slice(i, i + 100)));
    await consumer.done;
  }, rows.length);
  await relay.stop();
  await broker.stopConsuming({ deadlineMs: 1000 });
  return pass;
}

async function measure(run: () => Promise<void>, messages: number): Promise<Pass> {
  const machine = machineCpu();
  const own = process.cpuUsage();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  const used = process.cpuUsage(own);
  return {
    ms,
    processCpuMs: (used.user + used.system) / 1000 / messages,
    postgresCpuMs: (machineCpu().postgres - machine.postgres) / messages,
  };
}

/** Starts consuming `queue`; `done` resolves once `expected` messages were seen (wrapped, so awaiting the start does not wait for them). */
async function drain(broker: Broker, queue: string, expected: number): Promise<{ done: Promise<void> }> {
  let seen = 0;
  let resolve!: () => void;
  const done = new Promise<void>((settle) => (resolve = settle));
  await broker.consume({
    queue,
    messages: [systemProbe],
    prefetch: 200,
    handlers: { 'system.probe.v1': async () => void (++seen === expected && resolve()) },
  });
  return { done };
}
