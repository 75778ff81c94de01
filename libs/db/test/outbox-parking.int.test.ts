// The relay's end for messages the broker keeps refusing: a bounded budget, then parked
// (counted, listed, requeued by an operator); an outage spends no budget; and 10,000 failing rows
// never delay a fresh one.
import path from 'node:path';
import { createEnvelope, systemProbe, type Envelope } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { PrismaClient } from '../../../services/accounts/src/generated/prisma/client.ts';
import { enqueueOutbox } from '../src/outbox.ts';
import { listParkedOutbox, requeueParkedOutbox } from '../src/outbox-parked.ts';
import {
  CLAIM_SQL,
  OutboxRelay,
  RELAY_SESSION_SETTINGS,
  type EnvelopePublisher,
  type ParkReason,
} from '../src/outbox-relay.ts';
import { createPgRawSql } from '../src/pg-raw-sql.ts';
import { createPrismaAdapter } from '../src/prisma-bridge.ts';
import type { RawSql } from '../src/raw-sql.ts';

const logger = createLogger({ service: 'outbox-parking-test', level: 'silent' });
let database: TestDatabase;
let db: PrismaClient;

beforeAll(async () => {
  database = await createTestDatabase({
    prefix: 'outbox_park',
    serviceDir: path.resolve(__dirname, '../../../services/accounts'),
  });
  db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
});
afterAll(async () => {
  await db.$disconnect();
  await database.drop();
});
beforeEach(async () => {
  await db.$executeRawUnsafe('DELETE FROM outbox_messages');
});

/** Shaped like the broker's errors: PublishError carries `reason`; validation failures carry `code`. */
const refused = () =>
  Object.assign(new Error('No queue is bound to routing key "system.probe.v1"'), {
    code: 'service_unavailable',
    reason: 'unroutable',
  });
const invalid = () =>
  Object.assign(new Error('Message type x.v1 is not a known event or command.'), { code: 'validation_error' });
const outage = () => Object.assign(new Error('RabbitMQ cannot be reached'), { code: 'service_unavailable' });

function publisher(fail: (envelope: Envelope) => Error | undefined): EnvelopePublisher & { sent: Envelope[] } {
  const sent: Envelope[] = [];
  return {
    sent,
    publishEnvelope: (envelope) => {
      const error = fail(envelope);
      if (error !== undefined) return Promise.reject(error);
      sent.push(envelope);
      return Promise.resolve();
    },
  };
}

const probe = (n: number) => createEnvelope(systemProbe, { n }, { orgId: null, requestId: null });
const makeDue = () =>
  db.$executeRawUnsafe(
    "UPDATE outbox_messages SET available_at = now() - interval '1 second' WHERE published_at IS NULL",
  );

describe('outbox relay give-up-and-park', () => {
  it('parks a message the broker keeps refusing after maxAttempts, counts it, and lets an operator requeue it', async () => {
    const envelope = probe(1);
    await db.$transaction(async (tx) => enqueueOutbox(tx, [envelope]));
    const parked: [string, ParkReason][] = [];
    const relay = new OutboxRelay({
      db,
      publisher: publisher(() => refused()),
      logger,
      maxAttempts: 3,
      onParked: (type, reason) => parked.push([type, reason]),
    });
    for (let i = 0; i < 3; i += 1) {
      expect(await relay.relayBatch()).toBe(1);
      await makeDue();
    }
    expect(parked).toEqual([['system.probe.v1', 'attempts_exhausted']]);
    expect(await relay.relayBatch()).toBe(0);
    expect(await relay.parkedCount()).toBe(1);
    expect(await relay.backlog()).toBe(0);
    const [listed] = await listParkedOutbox(db);
    expect(listed).toMatchObject({ id: envelope.message_id, type: 'system.probe.v1', attempts: 3 });
    expect(listed!.last_error).toMatch(/No queue is bound/);

    // The cause is fixed (a consumer's queue now exists): the operator requeues, the relay publishes it.
    expect(await requeueParkedOutbox(db, { type: 'system.probe.v1' })).toBe(1);
    const healthy = publisher(() => undefined);
    expect(await new OutboxRelay({ db, publisher: healthy, logger }).relayBatch()).toBe(1);
    expect(healthy.sent.map((sent) => sent.message_id)).toEqual([envelope.message_id]);
    expect(await relay.parkedCount()).toBe(0);
  });

  it('parks an unpublishable message at once', async () => {
    await db.$transaction(async (tx) => enqueueOutbox(tx, [probe(2)]));
    const reasons: ParkReason[] = [];
    const relay = new OutboxRelay({
      db,
      publisher: publisher(() => invalid()),
      logger,
      onParked: (_type, reason) => reasons.push(reason),
    });
    await relay.relayBatch();
    expect(reasons).toEqual(['unpublishable']);
    expect(await relay.parkedCount()).toBe(1);
  });

  it('spends no budget while the broker is unreachable', async () => {
    const envelope = probe(3);
    await db.$transaction(async (tx) => enqueueOutbox(tx, [envelope]));
    const relay = new OutboxRelay({ db, publisher: publisher(() => outage()), logger, maxAttempts: 2 });
    for (let i = 0; i < 5; i += 1) {
      await relay.relayBatch();
      await makeDue();
    }
    expect(await relay.parkedCount()).toBe(0);
    const row = await db.outboxMessage.findUniqueOrThrow({ where: { id: envelope.message_id } });
    expect(row.attempts).toBe(0);
    expect(row.lastError).toMatch(/cannot be reached/);
  });

  it('claims fresh rows before 10,000 older failing ones', async () => {
    // 10,000 rows the broker keeps refusing, all due again, all older than the fresh ones.
    await db.$executeRawUnsafe(
      `INSERT INTO outbox_messages (id, type, envelope, attempts, available_at, created_at)
       SELECT id, 'system.probe.v1',
              jsonb_build_object('message_id', id::text, 'type', 'system.probe.v1', 'occurred_at', '2026-01-01T00:00:00.000Z',
                                 'request_id', NULL, 'org_id', NULL, 'payload', jsonb_build_object('n', -i)),
              3, now() - interval '1 second', now() - interval '1 hour' + i * interval '1 millisecond'
         FROM (SELECT gen_random_uuid() AS id, i FROM generate_series(1, 10000) AS i) AS rows`,
    );
    const fresh = Array.from({ length: 5 }, (_, i) => probe(1000 + i));
    await db.$transaction(async (tx) => enqueueOutbox(tx, fresh));
    const sink = publisher((envelope) => ((envelope.payload as { n: number }).n < 0 ? refused() : undefined));
    const relay = new OutboxRelay({ db, publisher: sink, logger, batchSize: 100 });

    // The very first batch relays every fresh row, ahead of the failing pile.
    expect(await relay.relayBatch()).toBe(100);
    expect(sink.sent.map((sent) => sent.message_id).sort()).toEqual(
      fresh.map((envelope) => envelope.message_id).sort(),
    );

    // And a fresh row committed while the pile is being retried is again first in line.
    const late = probe(2000);
    await db.$transaction(async (tx) => enqueueOutbox(tx, [late]));
    await relay.relayBatch();
    expect(sink.sent.at(-1)?.message_id).toBe(late.message_id);

    // The claim reads the partial index, not every failing row.
    expect(JSON.stringify(await explainClaim())).toMatch(/outbox_messages_claim_idx/);
  });

  it('passes over 20,000 delayed rows: a claim reads the index pages of the due rows only, not of the waiting ones', async () => {
    // Delayed commands (lookups, deferrals, a job's later delivery) wait with a future due time.
    // Walking their index entries on every claim is what slowed the soak's late windows. (The dead
    // entries the earlier tests left are vacuumed first, as autovacuum would.)
    await db.$executeRawUnsafe('VACUUM outbox_messages');
    await db.$executeRawUnsafe(
      `INSERT INTO outbox_messages (id, type, envelope, available_at)
       SELECT id, 'system.probe.v1', jsonb_build_object('message_id', id::text), now() + interval '1 hour' + i * interval '1 millisecond'
         FROM (SELECT gen_random_uuid() AS id, i FROM generate_series(1, 20000) AS i) AS rows`,
    );
    await db.$executeRawUnsafe('ANALYZE outbox_messages');
    const due = Array.from({ length: 5 }, (_, i) => probe(3000 + i));
    await db.$transaction(async (tx) => enqueueOutbox(tx, due));
    // The waiting rows fill about 60 leaf pages of the claim index; a batch that is not full still
    // stops at the first row not due, and the retries' range is empty.
    const scans = indexScans(await explainClaim()).filter((scan) => scan['Index Name'] === 'outbox_messages_claim_idx');
    expect(scans.length).toBeGreaterThan(0);
    const pagesRead = scans.reduce((sum, scan) => sum + scan['Shared Hit Blocks'] + scan['Shared Read Blocks'], 0);
    expect(pagesRead).toBeLessThan(15);
    expect(JSON.stringify(scans)).not.toMatch(/"Rows Removed by Filter":[1-9]/);
    const sink = publisher(() => undefined);
    expect(await new OutboxRelay({ db, publisher: sink, logger }).relayBatch()).toBe(5);
    expect(sink.sent.map((sent) => sent.message_id).sort()).toEqual(due.map((envelope) => envelope.message_id).sort());
  });
});

describe("the relay's connections", () => {
  it('claim through the index even when the statistics after a burst favour scanning the table', async () => {
    // A burst relayed and deleted, then analyzed (autoanalyze does this on a busy outbox): the
    // planner sees a few live rows and takes a sequential or bitmap scan, both of which read every
    // dead row of the burst on every claim until the next vacuum.
    await db.$executeRawUnsafe(
      `INSERT INTO outbox_messages (id, type, envelope, available_at)
       SELECT gen_random_uuid(), 'system.probe.v1', '{}'::jsonb, now() - interval '10 minutes' + i * interval '10 milliseconds'
         FROM generate_series(1, 12000) AS i`,
    );
    await db.$executeRawUnsafe(
      'DELETE FROM outbox_messages WHERE id IN (SELECT id FROM outbox_messages ORDER BY available_at LIMIT 11800)',
    );
    await db.$executeRawUnsafe('ANALYZE outbox_messages');
    const planText = async (sql: RawSql) =>
      (await sql.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${CLAIM_SQL}`, 100, 30))
        .map((line) => line['QUERY PLAN'])
        .join('\n');
    // The setup reproduces the problem on an ordinary connection...
    expect(await planText(db)).toMatch(/Seq Scan on outbox_messages|Bitmap Heap Scan on outbox_messages/);
    // ...and the relay's connections walk the claim index in order and find the claimed rows by key.
    const relaySql = createPgRawSql(database.connection, {
      max: 1,
      onIdleError: () => undefined,
      settings: RELAY_SESSION_SETTINGS,
    });
    try {
      const plan = await planText(relaySql);
      expect(plan).not.toMatch(/Seq Scan|Bitmap/);
      expect(plan).toMatch(/Index Scan using outbox_messages_claim_idx/);
      expect(plan).toMatch(/Index Scan using outbox_messages_pkey/);
    } finally {
      await relaySql.end();
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** The relay's own claim statement, run under EXPLAIN (ANALYZE, BUFFERS) and rolled back. */
async function explainClaim(): Promise<PlanNode> {
  let plan: PlanNode | undefined;
  await db
    .$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<{ 'QUERY PLAN': { Plan: PlanNode }[] }[]>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${CLAIM_SQL}`,
        100,
        30,
      );
      plan = row!['QUERY PLAN'][0]!.Plan;
      throw new Error('rollback');
    })
    .catch((error: unknown) => {
      if (!(error instanceof Error && error.message === 'rollback')) throw error;
    });
  return plan!;
}

function indexScans(node: PlanNode): (PlanNode & { 'Index Name': string })[] {
  const own = node['Index Name'] === undefined ? [] : [node as PlanNode & { 'Index Name': string }];
  return [...own, ...(node.Plans ?? []).flatMap(indexScans)];
}
