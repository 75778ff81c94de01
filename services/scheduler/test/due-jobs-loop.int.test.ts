import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createLogger } from '@svc/logger';
import { createTestDatabase, waitFor, type TestDatabase } from '@svc/testing';
import { schedulerCommandHandlers } from '../src/consumers/scheduler.consumers.ts';
import { DueJobsLoop } from '../src/domain/due-jobs-loop.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

describe('due jobs loop (scheduler database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  const logger = createLogger({ service: 'scheduler-test', level: 'silent' });
  const envelope = <P>(type: string, payload: P) => ({
    message_id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    request_id: 'req',
    org_id: 'org_1',
    payload,
  });
  const context = { redelivered: false, attempt: 1 };

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'scheduler-loop', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  /** How many dispatch commands in the outbox carry each job (a v2 command carries many). */
  const dispatchCounts = async () => {
    const rows = await db.$queryRawUnsafe<{ job_id: string; n: bigint }[]>(
      `SELECT job->>'job_id' AS job_id, count(*) AS n
         FROM outbox_messages, jsonb_array_elements(envelope->'payload'->'jobs') AS job
        WHERE type = 'publisher.job_dispatch.v2' GROUP BY 1`,
    );
    return new Map(rows.map((row) => [row.job_id, Number(row.n)]));
  };
  const dispatchCount = async (jobId: string) => (await dispatchCounts()).get(jobId) ?? 0;
  type Method = (...args: unknown[]) => Promise<unknown>;
  /** The client with one method replaced: `wrap` gets the original (bound) and returns what is called instead. */
  const withMethod = (name: '$transaction' | '$queryRawUnsafe', wrap: (original: Method) => Method): PrismaClient =>
    new Proxy(db, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        const bound = (value as Method).bind(target);
        return property === name ? wrap(bound) : bound;
      },
    });
  /**
   * Starts the loop, waits for the job's dispatch (20 s at most: a third of the tests' 60 s poll, so
   * only what the test arranges can fire it), stops the loop; returns the job's dispatch count.
   */
  const runUntilDispatched = async (loop: DueJobsLoop, jobId: string) => {
    loop.start();
    try {
      await waitFor(async () => (await dispatchCount(jobId)) > 0, {
        what: `job ${jobId} dispatched before the 60 s poll`,
        timeoutMs: 20_000,
      });
    } finally {
      await loop.stop();
    }
    return dispatchCount(jobId);
  };

  it('fires due (and late) jobs once even with several replicas claiming together, many jobs a command, and leaves future ones', async () => {
    const handlers = schedulerCommandHandlers(db);
    const late = Array.from({ length: 300 }, () => randomUUID());
    for (const id of late)
      await handlers['scheduler.job_schedule.v1'](
        envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() - 60_000).toISOString() }),
        context,
      );
    const future = randomUUID();
    await handlers['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: future, run_at: new Date(Date.now() + 3600_000).toISOString() }),
      context,
    );
    // A redelivered schedule command changes nothing.
    await handlers['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: late[0]!, run_at: new Date(Date.now() - 60_000).toISOString() }),
      context,
    );

    const loops = [1, 2, 3].map(
      () => new DueJobsLoop({ db, logger, pollMs: 10, batchSize: 50, jobsPerDispatch: 20, wake: () => undefined }),
    );
    const fired = await Promise.all(
      loops.map(async (loop) => {
        let total = 0;
        for (let pass = 0; pass < 10; pass += 1) total += await loop.fireDue();
        return total;
      }),
    );
    expect(fired.reduce((a, b) => a + b, 0)).toBe(late.length);
    const counts = await dispatchCounts();
    for (const id of late) expect({ id, commands: counts.get(id) }).toEqual({ id, commands: 1 });
    expect(counts.has(future)).toBe(false);
    // 50 rows a pass, 20 jobs a command: 3 commands a full pass (20, 20, 10), never one per job.
    const commands = await db.$queryRawUnsafe<{ envelope: { org_id: string | null; payload: { jobs: unknown[] } } }[]>(
      "SELECT envelope FROM outbox_messages WHERE type = 'publisher.job_dispatch.v2'",
    );
    expect(commands.length).toBeLessThanOrEqual(late.length / 10);
    expect(Math.max(...commands.map((row) => row.envelope.payload.jobs.length))).toBe(20);
    expect(commands.every((row) => row.envelope.org_id === 'org_1')).toBe(true);
    expect(await db.$queryRawUnsafe("SELECT 1 FROM outbox_messages WHERE type = 'publisher.job_dispatch.v1'")).toEqual(
      [],
    );
  });

  it('drops a canceled job, even when the unschedule overtakes the schedule', async () => {
    const handlers = schedulerCommandHandlers(db);
    const canceled = randomUUID();
    const overtaken = randomUUID();
    const due = new Date(Date.now() - 1000).toISOString();
    await handlers['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: canceled, run_at: due }),
      context,
    );
    await handlers['scheduler.job_unschedule.v1'](
      envelope('scheduler.job_unschedule.v1', { job_id: canceled }),
      context,
    );
    await handlers['scheduler.job_unschedule.v1'](
      envelope('scheduler.job_unschedule.v1', { job_id: overtaken }),
      context,
    );
    await handlers['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: overtaken, run_at: due }),
      context,
    );
    await new DueJobsLoop({
      db,
      logger,
      pollMs: 10,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => undefined,
    }).fireDue();
    expect(await dispatchCount(canceled)).toBe(0);
    expect(await dispatchCount(overtaken)).toBe(0);
  });

  it('wakes at the next due time instead of a whole poll interval later, never before it', async () => {
    const loop = new DueJobsLoop({
      db,
      logger,
      pollMs: 60_000,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => undefined,
    });
    await db.$executeRawUnsafe("UPDATE scheduled_jobs SET status = 'canceled' WHERE status = 'scheduled'");
    expect(await loop.untilNextDue()).toBe(60_000); // nothing waiting: the poll interval
    const id = randomUUID();
    await schedulerCommandHandlers(db)['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() + 2000).toISOString() }),
      context,
    );
    const wait = await loop.untilNextDue();
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2000);
    // With a 60 s poll, only the wake-up at the due time can fire it within these 20 s (runUntilDispatched).
    expect(await runUntilDispatched(loop, id)).toBe(1);
    const [row] = await db.$queryRawUnsafe<{ early: boolean }[]>(
      'SELECT fired_at < run_at AS early FROM scheduled_jobs WHERE job_id = $1::uuid',
      id,
    );
    expect(row?.early).toBe(false);
  }, 60_000);

  it('wakes from a long sleep when this process schedules a job due before it ends', async () => {
    await db.$executeRawUnsafe("UPDATE scheduled_jobs SET status = 'canceled' WHERE status = 'scheduled'");
    let passes = 0;
    const counted = withMethod('$transaction', (original) => async (...args) => {
      const result = await original(...args);
      passes += 1;
      return result;
    });
    const loop = new DueJobsLoop({
      db: counted,
      logger,
      pollMs: 60_000,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => undefined,
    });
    const told: Date[] = [];
    const handlers = schedulerCommandHandlers(db, (runAt) => {
      told.push(runAt);
      loop.scheduled(runAt);
    });
    loop.start();
    try {
      // Its first pass found nothing waiting: it sleeps the whole poll interval.
      await waitFor(() => passes > 0, { what: "the loop's first pass" });
      const id = randomUUID();
      const schedule = envelope('scheduler.job_schedule.v1', {
        job_id: id,
        run_at: new Date(Date.now() + 300).toISOString(),
      });
      await handlers['scheduler.job_schedule.v1'](schedule, context);
      // A redelivered command inserts nothing and tells the loop nothing.
      await handlers['scheduler.job_schedule.v1'](schedule, { ...context, redelivered: true });
      expect(told).toHaveLength(1);
      // Only the wake can fire it before the 60 s poll.
      await waitFor(async () => (await dispatchCount(id)) > 0, { what: 'the wake to fire the job', timeoutMs: 20_000 });
      expect(await dispatchCount(id)).toBe(1);
    } finally {
      await loop.stop();
    }
  }, 60_000);

  it('waits for a job this process schedules while a pass runs, after the pass read the next due time', async () => {
    await db.$executeRawUnsafe("UPDATE scheduled_jobs SET status = 'canceled' WHERE status = 'scheduled'");
    const id = randomUUID();
    let pending = true;
    // The first pass's transaction has read that nothing waits; the job is scheduled before it returns.
    const passing = withMethod('$transaction', (original) => async (...args) => {
      const result = await original(...args);
      if (pending) {
        pending = false;
        await schedulerCommandHandlers(db, (runAt) => loop.scheduled(runAt))['scheduler.job_schedule.v1'](
          envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() + 200).toISOString() }),
          context,
        );
      }
      return result;
    });
    const loop = new DueJobsLoop({
      db: passing,
      logger,
      pollMs: 60_000,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => undefined,
    });
    // With a 60 s poll, only a sleep cut to the job's time fires it within these 20 s (runUntilDispatched).
    expect(await runUntilDispatched(loop, id)).toBe(1);
    expect(pending).toBe(false);
  }, 60_000);

  it('waits for a job that comes due while a pass runs, however long the pass takes', async () => {
    const id = randomUUID();
    // Due 150 ms from now: after the next pass's claim reads the clock, before a statement 300 ms later does.
    await schedulerCommandHandlers(db)['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() + 150).toISOString() }),
      context,
    );
    // A loaded server: every statement outside a transaction starts 300 ms late.
    const slow = withMethod('$queryRawUnsafe', (original) => async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return original(...args);
    });
    const loop = new DueJobsLoop({
      db: slow,
      logger,
      pollMs: 60_000,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => undefined,
    });
    // With a 60 s poll, only a wake-up at its due time fires it within these 20 s (runUntilDispatched).
    expect(await runUntilDispatched(loop, id)).toBe(1);
  }, 60_000);

  it('tries a failed pass again within about a second, not a whole poll interval later', async () => {
    const id = randomUUID();
    await schedulerCommandHandlers(db)['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() - 1000).toISOString() }),
      context,
    );
    // The first transaction fails, as one that cannot start in time on a loaded server does.
    let failures = 1;
    const flaky = withMethod('$transaction', (original) => (...args) => {
      if (failures === 0) return original(...args);
      failures -= 1;
      return Promise.reject(new Error('Transaction API error: unable to start a transaction in the given time.'));
    });
    const loop = new DueJobsLoop({
      db: flaky,
      logger,
      pollMs: 60_000,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => undefined,
    });
    // With a 60 s poll, only a retry soon after the failure fires it within these 20 s (runUntilDispatched).
    expect(await runUntilDispatched(loop, id)).toBe(1);
    expect(failures).toBe(0);
  }, 60_000);

  it('runs its first pass at start and stops cleanly', async () => {
    const id = randomUUID();
    await schedulerCommandHandlers(db)['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: id, run_at: new Date(Date.now() - 5000).toISOString() }),
      context,
    );
    let woken = 0;
    const loop = new DueJobsLoop({
      db,
      logger,
      pollMs: 60_000,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => void (woken += 1),
    });
    loop.start();
    await waitFor(async () => (await dispatchCount(id)) > 0, { what: 'the first pass to fire the due job' }).finally(
      () => loop.stop(),
    );
    expect(await dispatchCount(id)).toBe(1);
    expect(woken).toBeGreaterThan(0);
  });
});
