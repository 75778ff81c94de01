import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPgRawSql, createPrismaAdapter } from '@svc/db';
import { AppError } from '@svc/errors';
import { createLogger } from '@svc/logger';
import {
  ProviderError,
  type LookupInput,
  type LookupResult,
  type Providers,
  type PublishInput,
  type PublishResult,
} from '@svc/providers';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import type { AccountsClient } from '../src/domain/accounts-client.ts';
import { InFlightSweeper } from '../src/domain/in-flight-sweeper.ts';
import { dispatchOverdueScheduled } from '../src/domain/dispatch-overdue.ts';
import { REQUEUE_BATCH, requeueStalePending } from '../src/domain/requeue-deliveries.ts';
import { DeliveryRunner, type RunDeliveryDeps } from '../src/domain/run-delivery.ts';
import {
  hasWaitingDeliveries,
  wakeWaitingDeliveries,
  wakeWaitingEverywhere,
  type WokenDelivery,
} from '../src/data/org-waiting.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { outboxTypesOfJob } from './outbox-of-job.ts';

/** The delivery state machine against a real database, with a scripted network and accounts service. */
describe('DeliveryRunner (publisher database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  const logger = createLogger({ service: 'publisher-test', level: 'silent' });
  let network: jest.Mock<Promise<PublishResult>, [PublishInput]>;
  let lookup: jest.Mock<Promise<LookupResult>, [LookupInput]>;
  let credentials: jest.Mock<ReturnType<AccountsClient['credentials']>, Parameters<AccountsClient['credentials']>>;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-runner', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  beforeEach(() => {
    network = jest.fn();
    lookup = jest.fn();
    credentials = jest.fn<ReturnType<AccountsClient['credentials']>, Parameters<AccountsClient['credentials']>>(
      async (_org, accountId) => ({
        account_id: accountId,
        provider: 'x',
        access_token: 'token',
        extras: {},
        token_expires_at: null,
      }),
    );
  });

  function runner(overrides: Partial<RunDeliveryDeps> = {}): DeliveryRunner {
    const providers = { x: { publish: { post: network }, lookup: { find: lookup } } } as unknown as Providers;
    const accounts: AccountsClient = { lookup: async () => [], credentials };
    return new DeliveryRunner({
      db,
      accounts,
      providers,
      logger,
      maxAttempts: 3,
      backoffMs: [1000, 5000],
      leaseMs: 60_000,
      reconcileDelaysMs: [5000, 15_000, 30_000],
      wake: () => undefined,
      ...overrides,
    });
  }

  async function job(accounts = 1, orgId = 'org_1'): Promise<{ jobId: string; deliveryIds: string[] }> {
    const jobId = randomUUID();
    const deliveryIds = Array.from({ length: accounts }, () => randomUUID());
    await db.job.create({
      data: {
        id: jobId,
        orgId,
        status: 'queued',
        text: 'hello',
        accountIds: deliveryIds.map((_, i) => `acct_${i}`),
        providers: ['x'],
        deliveries: {
          create: deliveryIds.map((id, position) => ({
            id,
            orgId,
            accountId: `acct_${position}`,
            provider: 'x',
            position,
            status: 'pending',
          })),
        },
      },
    });
    return { jobId, deliveryIds };
  }

  const delivery = (id: string) => db.delivery.findUniqueOrThrow({ where: { id } });
  const jobStatus = async (id: string) => (await db.job.findUniqueOrThrow({ where: { id } })).status;
  const outbox = (type: string, deliveryId: string) =>
    db.$queryRawUnsafe<{ delay_ms: number }[]>(
      `SELECT (EXTRACT(EPOCH FROM (available_at - now())) * 1000)::float8 AS delay_ms FROM outbox_messages
        WHERE type = $1 AND (envelope->'payload'->>'delivery_id' = $2 OR envelope->'payload'->'delivery_ids' ? $2)`,
      type,
      deliveryId,
    );
  const eventsOf = async (jobId: string) =>
    (await outboxTypesOfJob(db, jobId)).filter((type) => type.startsWith('post.'));

  it('publishes once and never again for a redelivered command', async () => {
    network.mockResolvedValue({ platformPostId: '123', url: 'https://x.test/123' });
    const {
      jobId,
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    await runner().run(id!);
    expect(network).toHaveBeenCalledTimes(1);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({
        status: 'published',
        platformPostId: '123',
        platformPostUrl: 'https://x.test/123',
        attempts: 1,
      }),
    );
    expect(await jobStatus(jobId)).toBe('published');
    expect(await eventsOf(jobId)).toEqual(['post.published.v1']);
  });

  it('waits max(backoff, Retry-After) through a future outbox row, then publishes', async () => {
    network.mockRejectedValueOnce(
      new ProviderError({
        network: 'x',
        kind: 'rate_limited',
        retryAfterMs: 20_000,
        networkMessage: 'Too Many Requests',
      }),
    );
    const {
      jobId,
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'pending', attempts: 1, errorCode: 'rate_limited' }),
    );
    expect(await jobStatus(jobId)).toBe('processing');
    const [row] = await outbox('publisher.delivery_run.v1', id!);
    expect(row!.delay_ms).toBeGreaterThan(18_000);
    // A command arriving before the retry time (a duplicate) does nothing.
    await runner().run(id!);
    expect(network).toHaveBeenCalledTimes(1);
    await db.$executeRawUnsafe('UPDATE deliveries SET next_attempt_at = now() WHERE id = $1::uuid', id);
    network.mockResolvedValueOnce({ platformPostId: '9', url: 'u' });
    await runner().run(id!);
    expect(await delivery(id!)).toEqual(expect.objectContaining({ status: 'published', attempts: 2, errorCode: null }));
  });

  it('refreshes an expired token once; a second expiry fails the target', async () => {
    network.mockRejectedValue(
      new ProviderError({ network: 'x', kind: 'auth_expired', networkMessage: 'Unauthorized' }),
    );
    const {
      jobId,
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    expect(credentials.mock.calls.map((call) => call[2])).toEqual([false, true]);
    expect(network).toHaveBeenCalledTimes(2);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'failed', errorCode: 'auth_expired', attempts: 1 }),
    );
    expect(await jobStatus(jobId)).toBe('failed');
    expect(await eventsOf(jobId)).toEqual(['post.failed.v1']);
  });

  it('fails targets whose account was deleted or needs reconnecting, and goes on with the others', async () => {
    network.mockResolvedValue({ platformPostId: '1', url: 'u' });
    credentials.mockImplementation(async (_org, accountId) => {
      if (accountId === 'acct_0') throw new AppError('not_found', 'The account acct_0 was not found.');
      if (accountId === 'acct_1') throw new AppError('conflict', 'The account needs reconnecting.');
      return { account_id: accountId, provider: 'x', access_token: 't', extras: {}, token_expires_at: null };
    });
    const { jobId, deliveryIds } = await job(3);
    for (const id of deliveryIds) await runner().run(id);
    expect((await Promise.all(deliveryIds.map(delivery))).map((row) => [row.status, row.errorCode])).toEqual([
      ['failed', 'account_deleted'],
      ['failed', 'account_unusable'],
      ['published', null],
    ]);
    expect(await jobStatus(jobId)).toBe('partial');
  });

  it('lets a broker retry happen when accounts is unreachable, without claiming the delivery', async () => {
    credentials.mockRejectedValue(new AppError('service_unavailable', 'accounts is down', { retryable: true }));
    const {
      deliveryIds: [id],
    } = await job();
    await expect(runner().run(id!)).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(await delivery(id!)).toEqual(expect.objectContaining({ status: 'pending', attempts: 0 }));
  });

  /** Puts a delivery in flight for attempt 1, started 10 s ago, with a lease ending `leaseSql` from now. */
  const inFlight = (id: string, leaseSql: string) =>
    db.$executeRawUnsafe(
      `UPDATE deliveries SET status = 'in_flight', attempts = 1, attempt_started_at = now() - interval '10 seconds', lease_until = now() + interval '${leaseSql}' WHERE id = $1::uuid`,
      id,
    );
  const due = (id: string) =>
    db.$executeRawUnsafe('UPDATE deliveries SET next_attempt_at = now() WHERE id = $1::uuid', id);

  it('takes over a delivery whose worker died: rechecked while its lease runs, then its post is looked up, never re-posted', async () => {
    const {
      jobId,
      deliveryIds: [id],
    } = await job();
    await inFlight(id!, '30 seconds');
    await runner().run(id!);
    expect((await delivery(id!)).status).toBe('in_flight');
    const [recheck] = await outbox('publisher.delivery_run.v1', id!);
    expect(recheck!.delay_ms).toBeGreaterThan(25_000);
    await inFlight(id!, '-1 second');
    lookup.mockResolvedValue({ status: 'found', result: { platformPostId: 'found-1', url: 'https://x.test/found-1' } });
    await runner().run(id!);
    expect(network).not.toHaveBeenCalled();
    expect(lookup).toHaveBeenCalledWith(expect.objectContaining({ text: 'hello', handle: undefined }));
    const since = lookup.mock.calls[0]![0].since.getTime();
    expect(Date.now() - since).toBeGreaterThan(9_000);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'published', platformPostId: 'found-1', attempts: 1 }),
    );
    expect(await jobStatus(jobId)).toBe('published');
    expect(await eventsOf(jobId)).toEqual(['post.published.v1']);
  });

  it('leaves alone a delivery its owner moved on between the read and the take-over', async () => {
    const {
      deliveryIds: [id],
    } = await job();
    await inFlight(id!, '-1 second');
    const stale = await delivery(id!);
    // Meanwhile the owner put it back to wait for a retry (pending, attempt 1, lease cleared).
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET status = 'pending', lease_until = NULL, error_code = 'rate_limited', next_attempt_at = now() + interval '1 minute' WHERE id = $1::uuid",
      id,
    );
    await (runner() as unknown as { takeOver: (row: typeof stale) => Promise<void> }).takeOver(stale);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'pending', errorCode: 'rate_limited', reconcileSince: null, attempts: 1 }),
    );
    expect(lookup).not.toHaveBeenCalled();
  });

  it("posts again only when the lookup shows the dead attempt's post verifiably absent", async () => {
    const {
      deliveryIds: [id],
    } = await job();
    await inFlight(id!, '-1 second');
    lookup.mockResolvedValue({ status: 'absent' });
    network.mockResolvedValue({ platformPostId: 'p2', url: 'u' });
    await runner().run(id!);
    expect(network).toHaveBeenCalledTimes(1);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'published', platformPostId: 'p2', attempts: 2 }),
    );
  });

  it('reports outcome_unknown, with the reason, when the network cannot be asked', async () => {
    const {
      jobId,
      deliveryIds: [id],
    } = await job();
    await inFlight(id!, '-1 second');
    lookup.mockRejectedValue(
      new ProviderError({ network: 'x', kind: 'permission_missing', networkMessage: 'reading posts needs tweet.read' }),
    );
    await runner().run(id!);
    expect(network).not.toHaveBeenCalled();
    const row = await delivery(id!);
    expect(row).toEqual(expect.objectContaining({ status: 'failed', errorCode: 'outcome_unknown', attempts: 1 }));
    expect(row.errorMessage).toContain('reading posts needs tweet.read');
    expect(await jobStatus(jobId)).toBe('failed');
  });

  it('looks an uncertain answer up (timeout after sending) instead of posting again, waiting between lookups', async () => {
    network.mockRejectedValueOnce(
      new ProviderError({
        network: 'x',
        kind: 'transient',
        networkCode: 'timeout',
        networkMessage: 'No answer',
        uncertain: true,
      }),
    );
    const {
      jobId,
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'pending', attempts: 1, errorCode: 'reconciling' }),
    );
    expect((await delivery(id!)).reconcileSince).not.toBeNull();
    const [first] = await outbox('publisher.delivery_run.v1', id!);
    expect(first!.delay_ms).toBeGreaterThan(4_000);
    // Still processing on the network: look again later (the second wait), no post.
    await due(id!);
    lookup.mockResolvedValueOnce({ status: 'pending' });
    await runner().run(id!);
    expect(await delivery(id!)).toEqual(expect.objectContaining({ status: 'pending', attempts: 1, reconcileTries: 1 }));
    await due(id!);
    lookup.mockResolvedValueOnce({ status: 'found', result: { platformPostId: 'late', url: 'https://x.test/late' } });
    await runner().run(id!);
    expect(network).toHaveBeenCalledTimes(1);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'published', platformPostId: 'late', attempts: 1, reconcileSince: null }),
    );
    expect(await eventsOf(jobId)).toEqual(['post.published.v1']);
  });

  it('gives up looking after the last wait: outcome_unknown, never a blind re-post', async () => {
    network.mockRejectedValueOnce(
      new ProviderError({
        network: 'x',
        kind: 'transient',
        status: 503,
        networkMessage: 'Service Unavailable',
        uncertain: true,
      }),
    );
    const {
      deliveryIds: [id],
    } = await job();
    const limited = runner({ reconcileDelaysMs: [10, 10] });
    await limited.run(id!);
    lookup.mockRejectedValue(new ProviderError({ network: 'x', kind: 'transient', networkMessage: 'read API down' }));
    const info = jest.spyOn(logger, 'info');
    for (let i = 0; i < 2; i += 1) {
      await due(id!);
      await limited.run(id!);
    }
    expect(network).toHaveBeenCalledTimes(1);
    expect(await delivery(id!)).toEqual(expect.objectContaining({ status: 'failed', errorCode: 'outcome_unknown' }));
    // Each lookup's line says why it did not settle the delivery.
    const reconciled = info.mock.calls.filter(
      ([, message]) => message === 'uncertain attempt reconciled with the network',
    );
    info.mockRestore();
    expect(reconciled.map(([fields]) => fields)).toEqual(
      Array(2).fill(
        expect.objectContaining({
          delivery_id: id,
          result: 'wait',
          reason: 'the lookup failed (transient: read API down)',
        }),
      ),
    );
  });

  it('treats a duplicate refusal after an earlier attempt as a question, not a failure', async () => {
    network
      .mockRejectedValueOnce(new ProviderError({ network: 'x', kind: 'rate_limited', networkMessage: 'slow down' }))
      .mockRejectedValueOnce(
        new ProviderError({ network: 'x', kind: 'duplicate', networkMessage: 'duplicate content' }),
      );
    lookup.mockResolvedValue({ status: 'found', result: { platformPostId: 'first', url: 'u' } });
    const {
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    await due(id!);
    await runner().run(id!);
    await due(id!);
    await runner().run(id!);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'published', platformPostId: 'first', attempts: 2 }),
    );
  });

  it('stores the handle the network gives on an attempt and reconciles through it', async () => {
    network.mockImplementationOnce(async (input) => {
      await input.onHandle?.('publish-42');
      throw new ProviderError({
        network: 'x',
        kind: 'transient',
        networkCode: 'PROCESSING',
        networkMessage: 'still processing',
        uncertain: true,
      });
    });
    const {
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    expect((await delivery(id!)).attemptHandle).toBe('publish-42');
    await due(id!);
    lookup.mockResolvedValueOnce({ status: 'found', result: { platformPostId: 'video-1', url: 'u' } });
    await runner().run(id!);
    expect(lookup).toHaveBeenCalledWith(expect.objectContaining({ handle: 'publish-42' }));
    expect((await delivery(id!)).platformPostId).toBe('video-1');
  });

  it('gives the next attempt the handle of one that ended without a post, so uploaded media is reused', async () => {
    // Attempt 1 uploads, reports its media and gives up waiting for processing (retryable, no post).
    network.mockImplementationOnce(async (input) => {
      await input.onHandle?.('media:["m-1"]');
      throw new ProviderError({
        network: 'x',
        kind: 'transient',
        networkCode: 'media_processing',
        networkMessage: 'X is still processing the media',
      });
    });
    // Attempt 2 times out after sending: uncertain, so it is looked up before anything else.
    network.mockImplementationOnce(async (input) => {
      await input.onHandle?.(input.resume!);
      throw new ProviderError({
        network: 'x',
        kind: 'transient',
        networkCode: 'timeout',
        networkMessage: 'No answer',
        uncertain: true,
      });
    });
    network.mockResolvedValueOnce({ platformPostId: 'p3', url: 'u' });
    lookup.mockResolvedValueOnce({ status: 'absent' });
    const {
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        errorCode: 'transient',
        attemptHandle: 'media:["m-1"]',
      }),
    );
    await due(id!);
    await runner().run(id!);
    await due(id!);
    await runner().run(id!);
    expect(network.mock.calls.map(([input]) => input.resume)).toEqual([undefined, 'media:["m-1"]', 'media:["m-1"]']);
    expect(lookup).toHaveBeenCalledWith(expect.objectContaining({ handle: 'media:["m-1"]' }));
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'published', platformPostId: 'p3', attempts: 3 }),
    );
  });

  it("renews a live worker's lease, so nobody takes over a slow call", async () => {
    const {
      deliveryIds: [id],
    } = await job();
    let answer: (result: PublishResult) => void = () => undefined;
    network.mockImplementation(
      () =>
        new Promise((resolve) => {
          answer = resolve;
        }),
    );
    const slow = runner({ leaseMs: 600 }).run(id!);
    for (let i = 0; i < 100 && network.mock.calls.length === 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await runner().run(id!);
    expect((await delivery(id!)).status).toBe('in_flight');
    expect(lookup).not.toHaveBeenCalled();
    answer({ platformPostId: 'slow', url: 'u' });
    await slow;
    expect(await delivery(id!)).toEqual(expect.objectContaining({ status: 'published', platformPostId: 'slow' }));
  });

  it('fails a target the network refuses for good (validation) at once, with its code and one attempt, and never retries it', async () => {
    network.mockRejectedValueOnce(
      new ProviderError({ network: 'x', kind: 'validation', networkMessage: 'Text too long' }),
    );
    const {
      deliveryIds: [id],
    } = await job();
    await runner().run(id!);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'failed', errorCode: 'validation', attempts: 1, nextAttemptAt: null }),
    );
    expect((await delivery(id!)).errorMessage).toContain('Text too long');
    await runner().run(id!);
    expect(network).toHaveBeenCalledTimes(1);
  });

  it('counts finished targets on the job: the last one announces it once', async () => {
    network
      .mockResolvedValueOnce({ platformPostId: 'a', url: 'u' })
      .mockRejectedValueOnce(new ProviderError({ network: 'x', kind: 'validation', networkMessage: 'too long' }));
    const { jobId, deliveryIds } = await job(2);
    await Promise.all(deliveryIds.map((id) => runner().run(id)));
    const row = await db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(row).toEqual(expect.objectContaining({ status: 'partial', finishedDeliveries: 2, publishedDeliveries: 1 }));
    expect(await eventsOf(jobId)).toEqual(['post.published.v1']);
  });

  it('counts every target of a job recorded at once on separate connections: the job finishes once, with one event', async () => {
    // Each outcome is one statement that counts it on the job unless it is the job's last; the last,
    // whichever connection gets there, finishes the job in a transaction.
    const { jobId, deliveryIds } = await job(16);
    let calls = 0;
    network.mockImplementation(async () => {
      calls += 1;
      if (calls % 4 === 0) throw new ProviderError({ network: 'x', kind: 'validation', networkMessage: 'too long' });
      return { platformPostId: `p${calls}`, url: 'https://x.test/p' };
    });
    const pool = createPgRawSql(database.connection, { max: 16, onIdleError: () => undefined });
    try {
      await Promise.all(deliveryIds.map((id) => runner({ db: pool }).run(id)));
    } finally {
      await pool.end();
    }
    const row = await db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(row).toEqual(
      expect.objectContaining({ status: 'partial', finishedDeliveries: 16, publishedDeliveries: 12 }),
    );
    expect(row.finishedAt).not.toBeNull();
    expect(await eventsOf(jobId)).toEqual(['post.published.v1']);
    const statuses = await db.delivery.groupBy({ by: ['status'], where: { jobId }, _count: true });
    expect(Object.fromEntries(statuses.map((entry) => [entry.status, entry._count]))).toEqual({
      published: 12,
      failed: 4,
    });
  });

  it('one runner delivering every target of jobs at once groups their reads and outcomes: each job finishes once, with exact counts', async () => {
    const jobs = [await job(30), await job(25)];
    let calls = 0;
    network.mockImplementation(async () => {
      calls += 1;
      if (calls % 5 === 0) throw new ProviderError({ network: 'x', kind: 'validation', networkMessage: 'too long' });
      return { platformPostId: `g${calls}`, url: 'https://x.test/g' };
    });
    const pool = createPgRawSql(database.connection, { max: 8, onIdleError: () => undefined });
    const statements: string[] = [];
    const query = pool.$queryRawUnsafe.bind(pool);
    pool.$queryRawUnsafe = ((sql: string, ...values: unknown[]) => {
      statements.push(sql);
      return query(sql, ...values);
    }) as typeof pool.$queryRawUnsafe;
    try {
      const shared = runner({ db: pool });
      await Promise.all(jobs.flatMap(({ deliveryIds }) => deliveryIds.map((id) => shared.run(id))));
    } finally {
      await pool.end();
    }
    expect(calls).toBe(55);
    // Fewer statements than deliveries: reads and outcomes travelled together.
    expect(statements.filter((sql) => sql.includes('d.id = ANY($1::uuid[])')).length).toBeLessThan(55);
    expect(statements.filter((sql) => sql.includes('unnest($1::uuid[]')).length).toBeLessThan(53);
    for (const { jobId, deliveryIds } of jobs) {
      const row = await db.job.findUniqueOrThrow({ where: { id: jobId } });
      const statuses = await db.delivery.groupBy({ by: ['status'], where: { jobId }, _count: true });
      const byStatus = Object.fromEntries(statuses.map((entry) => [entry.status, entry._count]));
      expect(byStatus.published! + byStatus.failed!).toBe(deliveryIds.length);
      expect(row).toEqual(
        expect.objectContaining({
          status: 'partial',
          finishedDeliveries: deliveryIds.length,
          publishedDeliveries: byStatus.published,
        }),
      );
      expect(await eventsOf(jobId)).toEqual(['post.published.v1']);
    }
  });

  it("records an outcome only for the attempt that owns the delivery, in one statement or in the last target's transaction", async () => {
    network.mockResolvedValue({ platformPostId: 'late', url: 'https://x.test/late' });
    const {
      jobId,
      deliveryIds: [first, second],
    } = await job(3);
    // Attempt 1 of `first` lost its lease and another worker failed it: its late success keeps the id, counts nothing more.
    await runner({
      afterNetworkCall: async (id) => {
        await db.$executeRawUnsafe(
          "UPDATE deliveries SET status = 'failed', error_code = 'outcome_unknown', finished_at = now() WHERE id = $1::uuid",
          id,
        );
        await db.$executeRawUnsafe(
          'UPDATE jobs SET finished_deliveries = finished_deliveries + 1 WHERE id = $1::uuid',
          jobId,
        );
      },
    }).run(first!);
    expect(await delivery(first!)).toEqual(expect.objectContaining({ status: 'failed', platformPostId: 'late' }));
    await runner().run(second!);
    const row = await db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(row).toEqual(
      expect.objectContaining({ status: 'processing', finishedDeliveries: 2, publishedDeliveries: 1 }),
    );
  });

  it('sweeps expired in-flight deliveries and re-enqueues pending ones that lost their command, in batches', async () => {
    const {
      deliveryIds: [stuck],
    } = await job();
    const { deliveryIds: lost } = await job(REQUEUE_BATCH + 20);
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET status = 'in_flight', attempts = 1, lease_until = now() - interval '1 second' WHERE id = $1::uuid",
      stuck,
    );
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET updated_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])",
      lost,
    );
    const resolved: string[] = [];
    let batches = 0;
    const sweeper = new InFlightSweeper({
      db,
      logger,
      intervalMs: 60_000,
      resolve: async (id) => void resolved.push(id),
      requeueStale: async () => {
        batches += 1;
        return requeueStalePending(db, 3600_000, () => undefined);
      },
      dispatchOverdue: async () => 0,
      wakeWaiting: async () => 0,
    });
    await sweeper.sweep();
    expect(resolved).toContain(stuck);
    expect(batches).toBe(2);
    const commands = async () =>
      (await Promise.all(lost.map((id) => outbox('publisher.delivery_run.v1', id)))).filter((rows) => rows.length > 0)
        .length;
    expect(await commands()).toBe(lost.length);
    await sweeper.sweep();
    expect(await commands()).toBe(lost.length);
  });

  it('counts waits for a quota window apart from attempts, up to DELIVERY_MAX_QUOTA_DEFERRALS', async () => {
    network.mockRejectedValue(
      new ProviderError({
        network: 'x',
        kind: 'quota_exhausted',
        retryAfterMs: 3_600_000,
        networkMessage: 'usage cap',
      }),
    );
    const {
      deliveryIds: [id],
    } = await job();
    const capped = runner({ maxAttempts: 2, maxQuotaDeferrals: 3 });
    for (let i = 0; i < 3; i += 1) {
      await capped.run(id!);
      expect(await delivery(id!)).toEqual(
        expect.objectContaining({ status: 'pending', quotaDeferrals: i + 1, errorCode: 'quota_exhausted' }),
      );
      await due(id!);
    }
    // Deferrals used up: the next two are ordinary attempts, the second of which is the last.
    await capped.run(id!);
    expect((await delivery(id!)).status).toBe('pending');
    await due(id!);
    await capped.run(id!);
    expect(await delivery(id!)).toEqual(
      expect.objectContaining({ status: 'failed', errorCode: 'retries_exhausted', attempts: 5 }),
    );
  });

  it('dispatches a scheduled job long past its time whose dispatch never came, once', async () => {
    const {
      jobId,
      deliveryIds: [id],
    } = await job();
    const { jobId: future } = await job();
    await db.$executeRawUnsafe(
      "UPDATE jobs SET status = 'scheduled', scheduled_at = now() - interval '20 minutes' WHERE id = $1::uuid",
      jobId,
    );
    await db.$executeRawUnsafe(
      "UPDATE jobs SET status = 'scheduled', scheduled_at = now() - interval '1 minute' WHERE id = $1::uuid",
      future,
    );
    expect(await dispatchOverdueScheduled({ db, wake: () => undefined }, 10 * 60_000)).toBe(1);
    expect(await jobStatus(jobId)).toBe('queued');
    expect(await jobStatus(future)).toBe('scheduled');
    expect(await outbox('publisher.delivery_run.v2', id!)).toHaveLength(1);
    expect(await eventsOf(jobId)).toEqual(['post.queued.v1']);
    expect(await dispatchOverdueScheduled({ db, wake: () => undefined }, 10 * 60_000)).toBe(0);
  });

  const waiting = async (ids: string[]) =>
    (
      await db.$queryRawUnsafe<{ id: string }[]>(
        'SELECT id::text AS id FROM deliveries WHERE id = ANY($1::uuid[]) AND org_wait_since IS NOT NULL',
        ids,
      )
    ).map((row) => row.id);

  it('limits deliveries in flight per organization: past it a delivery waits, the one that frees a slot wakes and runs it without a command, other organizations go on', async () => {
    const releases: (() => void)[] = [];
    network.mockImplementation(
      () =>
        new Promise<PublishResult>((resolve) =>
          releases.push(() => resolve({ platformPostId: 'p', url: 'https://x.test/p' })),
        ),
    );
    const busyOrg = `org_busy_${randomUUID()}`;
    const { deliveryIds } = await job(3, busyOrg);
    const {
      deliveryIds: [other],
    } = await job(1, `org_other_${randomUUID()}`);
    const limited = runner({ orgConcurrency: 2 });
    const running = [limited.run(deliveryIds[0]!), limited.run(deliveryIds[1]!)];
    for (const deadline = Date.now() + 10_000; network.mock.calls.length < 2;) {
      if (Date.now() > deadline) throw new Error('the first two deliveries never reached the network');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The third of the same organization is not claimed: its command is done, the delivery waits, with no command anywhere.
    await limited.run(deliveryIds[2]!);
    expect(network).toHaveBeenCalledTimes(2);
    expect(await delivery(deliveryIds[2]!)).toEqual(
      expect.objectContaining({ status: 'pending', attempts: 0, orgWokenUntil: null }),
    );
    expect(await waiting([deliveryIds[2]!])).toEqual([deliveryIds[2]]);
    // Another organization still gets a slot.
    const otherRun = limited.run(other!);
    for (const deadline = Date.now() + 10_000; network.mock.calls.length < 3;) {
      if (Date.now() > deadline) throw new Error('the other organization was blocked by the busy one');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    network.mockResolvedValue({ platformPostId: 'p3', url: 'https://x.test/p3' });
    releases.forEach((release) => release());
    await Promise.all([...running, otherRun]);
    // The first slot freed woke the waiting delivery and this process ran it: published once, never a command.
    await limited.drain();
    expect(await delivery(deliveryIds[2]!)).toEqual(
      expect.objectContaining({
        status: 'published',
        attempts: 1,
        platformPostId: 'p3',
        orgWaitSince: null,
        orgWokenUntil: null,
      }),
    );
    expect(network).toHaveBeenCalledTimes(4);
    expect(await outbox('publisher.delivery_run.v1', deliveryIds[2]!)).toEqual([]);
  });

  const ids = (wakes: WokenDelivery[]) => wakes.map((wake) => wake.id);
  const woken = async (ids: string[]) =>
    (
      await db.$queryRawUnsafe<{ id: string }[]>(
        'SELECT id::text AS id FROM deliveries WHERE id = ANY($1::uuid[]) AND org_woken_until > now()',
        ids,
      )
    ).map((row) => row.id);

  it("wakes waiting deliveries on the sweep where their organization's slots freed without a statement (a dead worker's lease ran out)", async () => {
    const orgId = `org_sweep_${randomUUID()}`;
    const {
      deliveryIds: [dead, ...rest],
    } = await job(4, orgId);
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET status = 'in_flight', attempts = 1, lease_until = now() + interval '1 minute' WHERE id = $1::uuid",
      dead,
    );
    const limited = runner({ orgConcurrency: 1 });
    for (const id of rest) await limited.run(id);
    expect((await waiting(rest)).sort()).toEqual([...rest].sort());
    // Still busy: the sweep wakes nobody of this organization.
    expect(ids(await wakeWaitingEverywhere(db, 1, 60_000))).toEqual([]);
    // The dead worker's lease runs out: one slot, so the sweep wakes one, the oldest waiting.
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET lease_until = now() - interval '1 second' WHERE id = $1::uuid",
      dead,
    );
    expect(ids(await wakeWaitingEverywhere(db, 1, 60_000))).toEqual([rest[0]]);
    expect(await woken(rest)).toEqual([rest[0]]);
    // Woken, it keeps its place in line and holds the free slot until its claim: the next sweep wakes nobody.
    expect((await waiting(rest)).sort()).toEqual([...rest].sort());
    expect(ids(await wakeWaitingEverywhere(db, 1, 60_000))).toEqual([]);
    // Its claim took the slot and it finished; a waiting delivery whose job was cancelled is no longer pending: never woken.
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET status = 'published', org_wait_since = NULL, org_woken_until = NULL WHERE id = $1::uuid",
      rest[0],
    );
    await db.$executeRawUnsafe("UPDATE deliveries SET status = 'failed' WHERE id = $1::uuid", rest[1]);
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET status = 'published', lease_until = NULL WHERE id = $1::uuid",
      dead,
    );
    expect(ids(await wakeWaitingEverywhere(db, 1, 60_000))).toEqual([rest[2]]);
    expect(await outbox('publisher.delivery_run.v1', rest[2]!)).toEqual([]);
  });

  it('wakes in one statement, oldest first, no more than the free slots, never one another publisher woke, and puts one back in line once its mark runs out', async () => {
    const orgId = `org_wake_${randomUUID()}`;
    const {
      deliveryIds: [busy, ...rest],
    } = await job(4, orgId);
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET status = 'in_flight', attempts = 1, lease_until = now() + interval '1 minute' WHERE id = $1::uuid",
      busy,
    );
    for (const id of rest) await runner({ orgConcurrency: 1 }).run(id);
    expect(await waiting(rest)).toHaveLength(3);
    // No free slot: nobody woken.
    expect(ids(await wakeWaitingEverywhere(db, 1, 60_000))).toEqual([]);
    // Its lease ran out and the limit is 3: three slots, the oldest two woken when two are asked for.
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET lease_until = now() - interval '1 second' WHERE id = $1::uuid",
      busy,
    );
    expect(ids(await wakeWaitingDeliveries(db, orgId, 3, 2, 60_000)).sort()).toEqual(rest.slice(0, 2).sort());
    // Another publisher's wake passes both over; the third is taken.
    expect(ids(await wakeWaitingDeliveries(db, orgId, 3, 3, 60_000))).toEqual([rest[2]]);
    expect(ids(await wakeWaitingDeliveries(db, orgId, 3, 3, 60_000))).toEqual([]);
    expect(await hasWaitingDeliveries(db, orgId)).toBe(false);
    // The waker of the first stopped before its claim: once its mark has run out, the sweep puts it back in line and wakes it again.
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET org_woken_until = now() - interval '1 second' WHERE id = $1::uuid",
      rest[0],
    );
    expect(await hasWaitingDeliveries(db, orgId)).toBe(false);
    expect(ids(await wakeWaitingEverywhere(db, 3, 60_000))).toEqual([rest[0]]);
    // Its claim takes the mark off, with the wait.
    network.mockResolvedValue({ platformPostId: 'p', url: 'https://x.test/p' });
    await runner({ orgConcurrency: 3 }).run(rest[0]!);
    expect(await delivery(rest[0]!)).toEqual(
      expect.objectContaining({ status: 'published', orgWaitSince: null, orgWokenUntil: null }),
    );
    expect(await outbox('publisher.delivery_run.v1', rest[0]!)).toEqual([]);
  });

  it("wakes nobody once draining (shutdown): the slot it frees is left to the other publishers' wakes and the sweep", async () => {
    let release: () => void = () => undefined;
    network.mockImplementation(
      () =>
        new Promise<PublishResult>((resolve) => {
          release = () => resolve({ platformPostId: 'p', url: 'https://x.test/p' });
        }),
    );
    const {
      deliveryIds: [first, second],
    } = await job(2, `org_drain_${randomUUID()}`);
    const limited = runner({ orgConcurrency: 1 });
    const running = limited.run(first!);
    for (const deadline = Date.now() + 10_000; network.mock.calls.length < 1;) {
      if (Date.now() > deadline) throw new Error('the first delivery never reached the network');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await limited.run(second!);
    expect(await waiting([second!])).toEqual([second]);
    await limited.drain();
    release();
    await running;
    expect(await delivery(first!)).toEqual(expect.objectContaining({ status: 'published' }));
    // Not marked woken: another publisher's wake may take it at once.
    expect(await delivery(second!)).toEqual(expect.objectContaining({ status: 'pending', orgWokenUntil: null }));
    expect(await waiting([second!])).toEqual([second]);
    expect(network).toHaveBeenCalledTimes(1);
  });

  it('leaves a delivery waiting for a slot to the wake, never to the requeue of pending deliveries that lost their command', async () => {
    const orgId = `org_patient_${randomUUID()}`;
    const {
      deliveryIds: [busy, patient, lost],
    } = await job(3, orgId);
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET status = 'in_flight', attempts = 1, lease_until = now() + interval '1 minute' WHERE id = $1::uuid",
      busy,
    );
    await runner({ orgConcurrency: 1 }).run(patient!);
    expect(await waiting([patient!])).toEqual([patient]);
    // Both untouched for two hours: only the one that is not waiting lost its command.
    await db.$executeRawUnsafe(
      "UPDATE deliveries SET updated_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])",
      [patient, lost],
    );
    expect(await requeueStalePending(db, 3600_000, () => undefined)).toBe(1);
    expect(await outbox('publisher.delivery_run.v1', lost!)).toHaveLength(1);
    expect(await outbox('publisher.delivery_run.v1', patient!)).toEqual([]);
    expect(await waiting([patient!])).toEqual([patient]);
  });

  it('wakes once per organization for the waits of a claim, not once per wait, and still runs every waiting delivery once', async () => {
    const releases: (() => void)[] = [];
    network.mockImplementation(
      () =>
        new Promise<PublishResult>((resolve) =>
          releases.push(() => resolve({ platformPostId: 'p', url: 'https://x.test/p' })),
        ),
    );
    const orgId = `org_wakes_${randomUUID()}`;
    const { jobId, deliveryIds } = await job(10, orgId);
    const pool = createPgRawSql(database.connection, { max: 4, onIdleError: () => undefined });
    const statements = { claims: 0, wakes: 0 };
    const counting: RunDeliveryDeps['db'] = {
      ...pool,
      $queryRawUnsafe: (query, ...values) => {
        if (query.includes('pg_advisory_xact_lock')) statements.claims += 1;
        if (query.includes('SET org_woken_until = now()')) statements.wakes += 1;
        return pool.$queryRawUnsafe(query, ...values);
      },
    };
    try {
      const limited = runner({ db: counting, orgConcurrency: 2 });
      const running = deliveryIds.map((id) => limited.run(id));
      for (
        const deadline = Date.now() + 10_000;
        (await waiting(deliveryIds)).length < 8 || network.mock.calls.length < 2;
      ) {
        if (Date.now() > deadline) throw new Error('two deliveries never reached the network with eight waiting');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // The eight waiting ones' commands are done once their wake ran; the two claimed ones hold the network.
      await Promise.race([Promise.all(running), new Promise((resolve) => setTimeout(resolve, 300))]);
      // Eight waits asked for a wake each; the waits of one claim statement share one (one wake per wait before).
      expect(statements.wakes).toBeGreaterThanOrEqual(1);
      expect(statements.wakes).toBeLessThanOrEqual(statements.claims);
      expect(statements.wakes).toBeLessThan(8);
      network.mockResolvedValue({ platformPostId: 'p', url: 'https://x.test/p' });
      releases.splice(0).forEach((release) => release());
      for (const deadline = Date.now() + 20_000; (await jobStatus(jobId)) !== 'published';) {
        if (Date.now() > deadline) throw new Error('the job was never published');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await Promise.all(running);
      await limited.drain();
      expect(network).toHaveBeenCalledTimes(10);
      expect(await waiting(deliveryIds)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('holds an organization to its limit when its claims race: 12 at once, limit 3, never more than 3 at the network, the rest run as slots free, without a command', async () => {
    // The claims run on separate connections at the same moment: without the organization's lock,
    // each could count the live leases before the others commit and all would pass.
    const releases: (() => void)[] = [];
    let calling = 0;
    let mostAtOnce = 0;
    network.mockImplementation(
      () =>
        new Promise<PublishResult>((resolve) => {
          calling += 1;
          mostAtOnce = Math.max(mostAtOnce, calling);
          releases.push(() => {
            calling -= 1;
            resolve({ platformPostId: `p${releases.length}`, url: 'https://x.test/p' });
          });
        }),
    );
    const orgId = `org_race_${randomUUID()}`;
    const { jobId, deliveryIds } = await job(12, orgId);
    const pool = createPgRawSql(database.connection, { max: 12, onIdleError: () => undefined });
    const untilCalled = async (times: number) => {
      for (const deadline = Date.now() + 10_000; network.mock.calls.length < times;) {
        if (Date.now() > deadline) throw new Error(`${times} deliveries never reached the network`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 300)); // any claim past the limit would call now
    };
    try {
      const limited = runner({ db: pool, orgConcurrency: 3 });
      const running = deliveryIds.map((id) => limited.run(id));
      await untilCalled(3);
      const statuses = await db.delivery.groupBy({ by: ['status'], where: { jobId }, _count: true });
      expect(Object.fromEntries(statuses.map((row) => [row.status, row._count]))).toEqual({ in_flight: 3, pending: 9 });
      expect(network).toHaveBeenCalledTimes(3);
      expect(await jobStatus(jobId)).toBe('processing');
      // The nine past the limit wait: nothing churns while the organization is busy.
      expect(await waiting(deliveryIds)).toHaveLength(9);
      await Promise.race([Promise.all(running), new Promise((resolve) => setTimeout(resolve, 300))]);
      // Each of the three freed slots wakes one of them, oldest first, and this process runs it.
      releases.splice(0).forEach((release) => release());
      await Promise.all(running);
      await untilCalled(6);
      expect(network).toHaveBeenCalledTimes(6);
      expect(await waiting(deliveryIds)).toHaveLength(6);
      // Released as they come, the rest follow three at a time, each delivered once.
      network.mockImplementation(async () => {
        calling += 1;
        mostAtOnce = Math.max(mostAtOnce, calling);
        await new Promise((resolve) => setTimeout(resolve, 20));
        calling -= 1;
        return { platformPostId: 'p', url: 'https://x.test/p' };
      });
      releases.splice(0).forEach((release) => release());
      for (const deadline = Date.now() + 20_000; (await jobStatus(jobId)) !== 'published';) {
        if (Date.now() > deadline) throw new Error('the job was never published');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await limited.drain();
      expect(network).toHaveBeenCalledTimes(12);
      expect(mostAtOnce).toBe(3);
      expect(await waiting(deliveryIds)).toEqual([]);
      const commands = await db.$queryRawUnsafe<{ n: number }[]>(
        "SELECT count(*)::int AS n FROM outbox_messages WHERE type = 'publisher.delivery_run.v1' AND envelope->'payload'->>'job_id' = $1",
        jobId,
      );
      expect(commands[0]?.n).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
