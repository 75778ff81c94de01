import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { claimQueueTime, releaseQueueTime } from '../src/domain/claim-queue-time.ts';
import { getQueue, setQueue } from '../src/domain/queue-settings.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

// 00:00, 06:00, 12:00 and 18:00 every day.
const FOUR_A_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].flatMap((day) =>
  ['00:00', '06:00', '12:00', '18:00'].map((time) => ({ day, time })),
);

/**
 * Queue claims against the publisher's database (docs/api-queue.md, "Slots"): concurrent claims for
 * one account never share a time, a claim whose job never appeared lapses after 10 minutes, one whose
 * job is stored holds, a released one is free at once.
 */
describe('queue claims (publisher database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  const deps = () => ({ db, minLeadSeconds: 60, transactionTimeoutMs: 20_000 });

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-queue', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  const claim = (orgId: string, accountIds: string[], jobId = randomUUID()) =>
    claimQueueTime(deps(), { orgId, accountIds, jobId }).then((at) => ({ at: at.toISOString(), jobId }));
  const age = (jobId: string) =>
    db.queueSlot.updateMany({ where: { jobId }, data: { claimedAt: new Date(Date.now() - 11 * 60_000) } });

  it('gives 20 concurrent claims for one account 20 different times, the first 20 of the queue', async () => {
    const orgId = `org_${randomUUID()}`;
    const queue = await setQueue(deps(), orgId, { timezone: 'Europe/Berlin', slots: FOUR_A_DAY });
    expect(queue.next_slots).toHaveLength(10);
    const claims = await Promise.all(Array.from({ length: 20 }, () => claim(orgId, ['acc-1'])));
    const times = claims.map((one) => one.at).sort();
    expect(new Set(times).size).toBe(20);
    expect(times.slice(0, 10)).toEqual(queue.next_slots);
    expect((await getQueue(deps(), orgId)).next_slots[0]! > times[19]!).toBe(true);
  });

  it('lets a claim whose job never appeared lapse after 10 minutes, and keeps one whose job is stored', async () => {
    const orgId = `org_${randomUUID()}`;
    await setQueue(deps(), orgId, { timezone: 'UTC', slots: FOUR_A_DAY });
    const orphan = await claim(orgId, ['acc-a']);
    const stored = await claim(orgId, ['acc-a']);
    await db.job.create({
      data: {
        id: stored.jobId,
        orgId,
        status: 'scheduled',
        text: 'queued',
        accountIds: ['acc-a'],
        providers: ['x'],
        scheduledAt: new Date(stored.at),
      },
    });
    // Fresh, both hold their times.
    const third = await claim(orgId, ['acc-a']);
    expect([orphan.at, stored.at]).not.toContain(third.at);
    await age(orphan.jobId);
    await age(stored.jobId);
    // The orphan's time is free again; the stored job's is not.
    const next = await claim(orgId, ['acc-a']);
    expect(next.at).toBe(orphan.at);
    expect(await db.queueSlot.count({ where: { jobId: orphan.jobId } })).toBe(0);
    const after = await claim(orgId, ['acc-a']);
    expect([stored.at, third.at, next.at]).not.toContain(after.at);
  });

  it('frees a released time at once, for the next claim', async () => {
    const orgId = `org_${randomUUID()}`;
    await setQueue(deps(), orgId, { timezone: 'Asia/Tokyo', slots: FOUR_A_DAY });
    const first = await claim(orgId, ['acc-r', 'acc-s']);
    await releaseQueueTime(db, first.jobId, new Date(first.at));
    const again = await claim(orgId, ['acc-s']);
    expect(again.at).toBe(first.at);
  });
});
