import path from 'node:path';
import { createEnvelope, systemProbe, type Envelope } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { PrismaClient } from '../../../services/accounts/src/generated/prisma/client.ts';
import { processEachOnce, processOnce } from '../src/inbox.ts';
import { createPgRawSql } from '../src/pg-raw-sql.ts';
import { enqueueOutbox } from '../src/outbox.ts';
import { OutboxRelay, type EnvelopePublisher } from '../src/outbox-relay.ts';
import { createPrismaAdapter } from '../src/prisma-bridge.ts';

const logger = createLogger({ service: 'outbox-test', level: 'silent' });
let database: TestDatabase;
let db: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase({
    prefix: 'outbox',
    serviceDir: path.resolve(__dirname, '../../../services/accounts'),
  });
  db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});

/** Records what would have gone to RabbitMQ; `failFor` makes chosen messages fail (nack/return). */
function recordingPublisher(failFor = new Set<string>()): EnvelopePublisher & { sent: Envelope[] } {
  const sent: Envelope[] = [];
  return {
    sent,
    publishEnvelope: (envelope) => {
      if (failFor.has(envelope.message_id)) return Promise.reject(new Error('broker nacked'));
      sent.push(envelope);
      return Promise.resolve();
    },
  };
}

const probe = (n: number) => createEnvelope(systemProbe, { n }, { orgId: 'org_1', requestId: 'req_1' });

async function waitFor(predicate: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('transactional outbox', () => {
  it('relays only committed messages, once, and marks them published', async () => {
    const committed = probe(1);
    const rolledBack = probe(2);
    await db.$transaction(async (tx) => enqueueOutbox(tx, [committed]));
    await expect(
      db.$transaction(async (tx) => {
        await enqueueOutbox(tx, [rolledBack]);
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');

    const publisher = recordingPublisher();
    const relay = new OutboxRelay({ db, publisher, logger, pollIntervalMs: 50 });
    expect(await relay.relayBatch()).toBe(1);
    expect(await relay.relayBatch()).toBe(0);
    expect(publisher.sent.map((e) => e.message_id)).toEqual([committed.message_id]);
    // Once the broker confirmed it, the row is gone: the table holds only what is still to send.
    expect(await db.outboxMessage.count()).toBe(0);
    expect(await relay.backlog()).toBe(0);
  });

  it('reports the age of the oldest row still to publish, and 0 once the relay has sent it', async () => {
    const envelope = probe(30);
    await db.$transaction(async (tx) => enqueueOutbox(tx, [envelope]));
    // Written ten minutes ago, as if the relay had been stuck since.
    await db.$executeRawUnsafe(
      "UPDATE outbox_messages SET created_at = now() - interval '10 minutes' WHERE id = $1::uuid",
      envelope.message_id,
    );
    const relay = new OutboxRelay({ db, publisher: recordingPublisher(), logger });
    const age = await relay.oldestPendingAgeSeconds();
    expect(age).toBeGreaterThanOrEqual(600);
    expect(age).toBeLessThan(3600);
    await relay.relayBatch();
    expect(await relay.oldestPendingAgeSeconds()).toBe(0);
  });

  it('retries a failed publish later with backoff, keeping the error', async () => {
    const envelope = probe(3);
    await db.$transaction(async (tx) => enqueueOutbox(tx, [envelope]));
    const failing = recordingPublisher(new Set([envelope.message_id]));
    const relay = new OutboxRelay({ db, publisher: failing, logger });
    await relay.relayBatch();
    const row = await db.outboxMessage.findUniqueOrThrow({ where: { id: envelope.message_id } });
    expect(row.publishedAt).toBeNull();
    expect(row.lastError).toBe('broker nacked');
    expect(row.availableAt.getTime()).toBeGreaterThan(Date.now());
    expect(await relay.relayBatch()).toBe(0);

    await db.outboxMessage.update({
      where: { id: envelope.message_id },
      data: { availableAt: new Date(Date.now() - 1000) },
    });
    const healthy = recordingPublisher();
    await new OutboxRelay({ db, publisher: healthy, logger }).relayBatch();
    expect(healthy.sent.map((e) => e.message_id)).toEqual([envelope.message_id]);
  });

  it('lets concurrent relays share the work without publishing a row twice', async () => {
    const envelopes = Array.from({ length: 60 }, (_, i) => probe(100 + i));
    await db.$transaction(async (tx) => enqueueOutbox(tx, envelopes));
    const publishers = [recordingPublisher(), recordingPublisher(), recordingPublisher()];
    const relays = publishers.map((publisher) => new OutboxRelay({ db, publisher, logger, batchSize: 7 }));
    while ((await Promise.all(relays.map((relay) => relay.relayBatch()))).some((n) => n > 0));
    const ids = publishers.flatMap((p) => p.sent.map((e) => e.message_id));
    expect(ids.sort()).toEqual(envelopes.map((e) => e.message_id).sort());
  });

  it('wakes on commit through LISTEN/NOTIFY instead of waiting for the poll', async () => {
    const publisher = recordingPublisher();
    const relay = new OutboxRelay({
      db,
      publisher,
      logger,
      pollIntervalMs: 60_000,
      listenConnection: database.connection,
    });
    await relay.start();
    try {
      const envelope = probe(7);
      await db.$transaction(async (tx) => enqueueOutbox(tx, [envelope]));
      await waitFor(() => publisher.sent.some((e) => e.message_id === envelope.message_id), 3000);
    } finally {
      await relay.stop();
    }
  });

  it('does not miss a wake() that arrives while a batch is being relayed', async () => {
    // The first publish blocks until the second row is committed and wake() was called; a relay
    // that only cuts sleeps short would then sleep the full minute-long poll interval.
    const first = probe(8);
    const second = probe(9);
    await db.$transaction(async (tx) => enqueueOutbox(tx, [first]));
    let release: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => undefined;
    const inBatch = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const sent: string[] = [];
    const publisher: EnvelopePublisher = {
      publishEnvelope: async (envelope) => {
        if (envelope.message_id === first.message_id) {
          entered();
          await blocked;
        }
        sent.push(envelope.message_id);
      },
    };
    const relay = new OutboxRelay({ db, publisher, logger, pollIntervalMs: 60_000 });
    await relay.start();
    try {
      await inBatch;
      await db.$transaction(async (tx) => enqueueOutbox(tx, [second]));
      relay.wake();
      release();
      await waitFor(() => sent.includes(second.message_id), 10_000);
    } finally {
      await relay.stop();
    }
  });
});

describe('inbox', () => {
  it('runs the work once per message id and consumer, committing with it', async () => {
    let runs = 0;
    const work = async () => {
      runs += 1;
      return 'done';
    };
    expect(await processOnce(db, 'test-consumer', 'm-1', work)).toEqual({ duplicate: false, result: 'done' });
    expect(await processOnce(db, 'test-consumer', 'm-1', work)).toEqual({ duplicate: true });
    expect(await processOnce(db, 'other-consumer', 'm-1', work)).toEqual({ duplicate: false, result: 'done' });
    expect(runs).toBe(2);
  });

  it('forgets the id when the work fails, so a redelivery can try again', async () => {
    await expect(processOnce(db, 'test-consumer', 'm-2', () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await processOnce(db, 'test-consumer', 'm-2', () => Promise.resolve(1))).toEqual({
      duplicate: false,
      result: 1,
    });
  });

  it('runs the work of many messages in one transaction with the ids not seen before; a failure forgets them all', async () => {
    await processOnce(db, 'batch-consumer', 'b-2', () => Promise.resolve(undefined));
    const seen: string[][] = [];
    const outcome = await processEachOnce(db, 'batch-consumer', ['b-3', 'b-1', 'b-2', 'b-3'], (_tx, fresh) =>
      Promise.resolve(seen.push([...fresh].sort())),
    );
    expect(seen).toEqual([['b-1', 'b-3']]);
    expect([...outcome.fresh].sort()).toEqual(['b-1', 'b-3']);
    await expect(
      processEachOnce(db, 'batch-consumer', ['b-4', 'b-5'], () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(
      [...(await processEachOnce(db, 'batch-consumer', ['b-5', 'b-4', 'b-1'], () => Promise.resolve(0))).fresh].sort(),
    ).toEqual(['b-4', 'b-5']);
  });

  it('batches naming the same ids in opposite orders, at once, never deadlock: each id is fresh for exactly one of them', async () => {
    const sql = createPgRawSql(database.connection, { max: 8, onIdleError: () => undefined });
    try {
      for (let round = 0; round < 5; round += 1) {
        const ids = Array.from({ length: 40 }, (_, n) => `race-${round}-${n}`);
        // Each batch holds its inserted ids until it commits, so the other waits on them meanwhile.
        const hold = () => new Promise((resolve) => setTimeout(resolve, 20));
        const batches = Array.from({ length: 6 }, (_, b) => (b % 2 === 0 ? ids : [...ids].reverse()));
        const outcomes = await Promise.all(batches.map((batch) => processEachOnce(sql, 'race-consumer', batch, hold)));
        expect(outcomes.flatMap((o) => [...o.fresh]).sort()).toEqual([...ids].sort());
      }
    } finally {
      await sql.end();
    }
  });
});
