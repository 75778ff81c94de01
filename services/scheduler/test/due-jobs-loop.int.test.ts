import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createLogger } from '@svc/logger';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { schedulerCommandHandlers } from '../src/consumers/scheduler.consumers.ts';
import { DueJobsLoop } from '../src/domain/due-jobs-loop.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

describe('due jobs loop (scheduler database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  const logger = createLogger({ service: 'scheduler-test', level: 'silent' });
  const envelope = <P>(type: string, payload: P) => ({ message_id: randomUUID(), type, occurred_at: new Date().toISOString(), request_id: 'req', org_id: 'org_1', payload });
  const context = { redelivered: false, attempt: 1 };

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'scheduler-loop', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  const dispatchCount = async (jobId: string) =>
    Number((await db.$queryRawUnsafe<{ n: bigint }[]>("SELECT count(*) AS n FROM outbox_messages WHERE type = 'publisher.job_dispatch.v1' AND envelope->'payload'->>'job_id' = $1", jobId))[0]?.n ?? 0);

  it('fires due (and late) jobs once even with several replicas claiming together, and leaves future ones', async () => {
    const handlers = schedulerCommandHandlers(db);
    const late = Array.from({ length: 300 }, () => randomUUID());
    for (const id of late) await handlers['scheduler.job_schedule.v1'](envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() - 60_000).toISOString() }), context);
    const future = randomUUID();
    await handlers['scheduler.job_schedule.v1'](envelope('scheduler.job_schedule.v1', { job_id: future, run_at: new Date(Date.now() + 3600_000).toISOString() }), context);
    // A redelivered schedule command changes nothing.
    await handlers['scheduler.job_schedule.v1'](envelope('scheduler.job_schedule.v1', { job_id: late[0]!, run_at: new Date(Date.now() - 60_000).toISOString() }), context);

    const loops = [1, 2, 3].map(() => new DueJobsLoop({ db, logger, pollMs: 10, batchSize: 50, wake: () => undefined }));
    const fired = await Promise.all(loops.map(async (loop) => {
      let total = 0;
      for (let pass = 0; pass < 10; pass += 1) total += await loop.fireDue();
      return total;
    }));
    expect(fired.reduce((a, b) => a + b, 0)).toBe(late.length);
    for (const id of late.slice(0, 20)) expect(await dispatchCount(id)).toBe(1);
    expect(await dispatchCount(future)).toBe(0);
    const [envelopeRow] = await db.$queryRawUnsafe<{ envelope: { org_id: string; request_id: string } }[]>("SELECT envelope FROM outbox_messages WHERE envelope->'payload'->>'job_id' = $1", late[0]);
    expect(envelopeRow?.envelope).toEqual(expect.objectContaining({ org_id: 'org_1', request_id: 'req' }));
  });

  it('drops a canceled job, even when the unschedule overtakes the schedule', async () => {
    const handlers = schedulerCommandHandlers(db);
    const canceled = randomUUID();
    const overtaken = randomUUID();
    const due = new Date(Date.now() - 1000).toISOString();
    await handlers['scheduler.job_schedule.v1'](envelope('scheduler.job_schedule.v1', { job_id: canceled, run_at: due }), context);
    await handlers['scheduler.job_unschedule.v1'](envelope('scheduler.job_unschedule.v1', { job_id: canceled }), context);
    await handlers['scheduler.job_unschedule.v1'](envelope('scheduler.job_unschedule.v1', { job_id: overtaken }), context);
    await handlers['scheduler.job_schedule.v1'](envelope('scheduler.job_schedule.v1', { job_id: overtaken, run_at: due }), context);
    await new DueJobsLoop({ db, logger, pollMs: 10, batchSize: 50, wake: () => undefined }).fireDue();
    expect(await dispatchCount(canceled)).toBe(0);
    expect(await dispatchCount(overtaken)).toBe(0);
  });

  it('runs its first pass at start and stops cleanly', async () => {
    const id = randomUUID();
    await schedulerCommandHandlers(db)['scheduler.job_schedule.v1'](envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() - 5000).toISOString() }), context);
    let woken = 0;
    const loop = new DueJobsLoop({ db, logger, pollMs: 60_000, batchSize: 50, wake: () => void (woken += 1) });
    loop.start();
    for (let i = 0; i < 100 && (await dispatchCount(id)) === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    await loop.stop();
    expect(await dispatchCount(id)).toBe(1);
    expect(woken).toBeGreaterThan(0);
  });
});
