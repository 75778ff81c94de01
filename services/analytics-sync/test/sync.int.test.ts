// analytics-sync's freshness rules against a real database and the network sandbox, with time
// injected (never waited for) and a scripted accounts service.
import { createPgRawSql, type RawSql, type TransactionalClient } from '@svc/db';
import { AppError } from '@svc/errors';
import { createLogger } from '@svc/logger';
import type { NetworkAnalytics } from '@svc/providers';
import { waitFor, type TestDatabase } from '@svc/testing';
import { testProviders, type RunningSandbox } from '../../../libs/providers/test/support/sandbox.ts';
import { AnalyticsRepository, type AnalyticsRecord } from '../src/data/analytics.repository.ts';
import type { AccountsClient } from '../src/domain/accounts-client.ts';
import { BackgroundSync } from '../src/domain/background-sync.ts';
import { listAnalytics, type ListDeps } from '../src/domain/list-analytics.ts';
import { NetworkReadGate } from '../src/domain/network-read-gate.ts';
import { ReadRefresher } from '../src/domain/read-refresher.ts';
import type { RefreshDeps } from '../src/domain/refresh-rows.ts';
import { PublishedRecorder } from '../src/domain/record-published.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { ManualClock, newPostId, openAnalyticsTestbed, publishedEvent, type AnalyticsTestbed } from './support.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ORG = 'org_sync';

describe('analytics-sync freshness, cadence and failures (injected time)', () => {
  let testbed: AnalyticsTestbed | undefined;
  let database: TestDatabase;
  let db: PrismaClient;
  let sandbox: RunningSandbox;
  let repo: AnalyticsRepository;
  let analytics: NetworkAnalytics;
  let clock: ManualClock;
  let accountsFail: Map<string, Error>;
  let credentialCalls: { accountId: string; force: boolean }[];
  let xReads: string[][];
  const tokens = new Map<string, string>();
  const logger = createLogger({ service: 'analytics-test', level: 'silent' });

  const accounts: AccountsClient = {
    credentials: async (_orgId, accountId, force) => {
      credentialCalls.push({ accountId, force });
      const failure = accountsFail.get(accountId);
      if (failure) throw failure;
      return {
        account_id: accountId,
        provider: 'x',
        access_token: tokens.get(accountId)!,
        extras: {},
        token_expires_at: null,
      };
    },
  };

  /** What the background and a list read use; a list read's refresher reads a row at most once a minute. */
  function deps(overrides: Partial<RefreshDeps & { readBudgetMs: number }> = {}): RefreshDeps & ListDeps {
    const counting: NetworkAnalytics = {
      ...analytics,
      x: {
        network: 'x',
        read: (input) => {
          xReads.push([...input.platformPostIds]);
          return analytics.x.read(input);
        },
      },
    };
    const refresh: RefreshDeps = {
      repo,
      accounts,
      analytics: counting,
      clock: clock.read,
      logger,
      settings: { rateLimitDeferMs: 15 * MINUTE, transientRetryMs: 5 * MINUTE },
      concurrency: 2,
      gate: new NetworkReadGate({ concurrency: 16, perSecond: 0 }),
      ...overrides,
    };
    return {
      ...refresh,
      readBudgetMs: overrides.readBudgetMs ?? 5000,
      refresher: new ReadRefresher(refresh, { minRefreshAgeMs: MINUTE, orgReadsPerMinute: 1000 }),
    };
  }
  const sync = (overrides: Partial<RefreshDeps> = {}) =>
    new BackgroundSync({ deps: deps(overrides), repo, logger, intervalMs: 1000, batchSize: 100, leaseMs: 10 * MINUTE });
  const rowsOf = async (postId: string): Promise<AnalyticsRecord[]> => (await repo.page(ORG, { postId }, 1, 100)).rows;
  /** When the background next reads the row (analytics_readings). */
  const nextSyncOf = async (row: AnalyticsRecord): Promise<Date | undefined> =>
    (
      await db.$queryRawUnsafe<{ next_sync_at: Date }[]>(
        'SELECT next_sync_at FROM analytics_readings WHERE row_id = $1::uuid',
        row.id,
      )
    )[0]?.next_sync_at;

  /** A repository whose statements, its own transactions' included, all run in `tx` (for pg_stat_xact_user_tables). */
  const inTransaction = (tx: RawSql) =>
    new AnalyticsRepository(tx as unknown as PrismaClient, {
      $executeRawUnsafe: (...args) => tx.$executeRawUnsafe(...args),
      $queryRawUnsafe: (...args) => tx.$queryRawUnsafe(...args),
      $transaction: (work) => work(tx),
    });

  /** A real post on X in the sandbox, from a BYOK account of its own. */
  async function tweet(accountId: string, text: string): Promise<string> {
    tokens.set(accountId, tokens.get(accountId) ?? `tok-${accountId}-${Date.now()}`);
    const result = await testProviders(sandbox.baseUrl).x.publish.post({
      credentials: { accessToken: tokens.get(accountId)! },
      text: `${text} ${Date.now()} ${Math.random()}`,
      media: [],
    });
    return result.platformPostId;
  }
  const setLikes = (id: string, likes: number) =>
    sandbox.setMetrics('x', id, {
      impression_count: likes * 10,
      like_count: likes,
      retweet_count: 0,
      reply_count: 0,
      quote_count: 0,
      bookmark_count: 0,
    });

  async function publish(targets: { accountId: string; platformPostId: string }[], at = clock.read()) {
    const postId = newPostId();
    await new PublishedRecorder({ db, repo, wake: () => undefined }).record(
      publishedEvent(
        ORG,
        postId,
        targets.map((target) => ({ ...target, provider: 'x' })),
        at,
      ),
    );
    return postId;
  }

  beforeAll(async () => {
    testbed = await openAnalyticsTestbed('analytics-sync');
    ({ database, db, repo, sandbox, analytics } = testbed);
  }, 60_000);

  afterAll(async () => testbed?.close());

  beforeEach(async () => {
    // Every test starts from an empty cache: due rows of one test must not be read by the next one's passes.
    await db.$executeRawUnsafe('DELETE FROM analytics_rows');
    await db.$executeRawUnsafe('DELETE FROM account_pauses');
    await db.$executeRawUnsafe('DELETE FROM analytics_account_due');
    clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
    accountsFail = new Map();
    credentialCalls = [];
    xReads = [];
  });

  it('creates pending rows once per (post, account), whatever the redeliveries', async () => {
    const id = await tweet('acct_a', 'first');
    const postId = newPostId();
    const event = publishedEvent(
      ORG,
      postId,
      [{ accountId: 'acct_a', provider: 'x', platformPostId: id }],
      clock.read(),
    );
    await new PublishedRecorder({ db, repo, wake: () => undefined }).record(event);
    await new PublishedRecorder({ db, repo, wake: () => undefined }).record(event);
    await new PublishedRecorder({ db, repo, wake: () => undefined }).record({
      ...event,
      message_id: 'another-delivery-of-the-same-result',
    });
    const rows = await rowsOf(postId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual(
      expect.objectContaining({
        syncStatus: 'pending',
        metrics: {},
        warnings: [],
        errorMessage: null,
        lastUpdatedAt: null,
        staleAfter: null,
        platformPostId: id,
      }),
    );
    expect(rows[0]!.createdAt.toISOString()).toBe('2026-06-01T12:00:00.000Z');
  });

  it('a refresh never rewrites the recorded rows: the claim and the save write only their readings', async () => {
    const postIds: string[] = [];
    for (let n = 0; n < 4; n += 1)
      postIds.push(await publish([{ accountId: 'acct_hot', platformPostId: await tweet('acct_hot', `hot ${n}`) }]));
    const sql = createPgRawSql(database.connection, { max: 1, onIdleError: () => undefined });
    // This transaction's own counts of each table's updates.
    const updates = async (tx: RawSql) => {
      const rows = await tx.$queryRawUnsafe<{ relname: string; n: number }[]>(
        "SELECT relname, n_tup_upd::int AS n FROM pg_stat_xact_user_tables WHERE relname IN ('analytics_rows', 'analytics_readings')",
      );
      return Object.fromEntries(rows.map((row) => [row.relname, row.n]));
    };
    try {
      const read = await sql.$transaction(async (tx) => {
        const txRepo = inTransaction(tx);
        const claimed = await txRepo.claimDue(clock.read(), 100, 10 * MINUTE);
        expect(claimed.map((row) => row.postId).sort()).toEqual([...postIds].sort());
        expect(await updates(tx)).toEqual({ analytics_rows: 0, analytics_readings: 4 });
        await txRepo.updateMany(
          claimed.map((row) => ({
            id: row.id,
            update: {
              syncStatus: 'synced',
              metrics: { like_count: 7 },
              warnings: [],
              errorMessage: null,
              lastUpdatedAt: clock.read(),
              staleAfter: new Date(clock.read().getTime() + 15 * MINUTE),
              nextSyncAt: new Date(clock.read().getTime() + 15 * MINUTE),
            },
          })),
        );
        expect(await updates(tx)).toEqual({ analytics_rows: 0, analytics_readings: 8 });
        return claimed;
      });
      for (const row of read) {
        expect(await nextSyncOf(row)).toEqual(new Date(clock.read().getTime() + 15 * MINUTE));
        expect((await rowsOf(row.postId))[0]).toEqual(
          expect.objectContaining({ syncStatus: 'synced', metrics: { like_count: 7 } }),
        );
      }
    } finally {
      await sql.end();
    }
  });

  /** `count` rows of one account recorded in one statement, first read at `nextSyncAt` (no network behind them). */
  async function recordRows(accountId: string, count: number, nextSyncAt: Date, on: RawSql = db): Promise<string[]> {
    const rows = Array.from({ length: count }, (_, n) => ({
      orgId: ORG,
      postId: newPostId(),
      accountId,
      platform: 'x',
      platformPostId: `${accountId}-${n}-${Date.now()}`,
      platformPostUrl: null,
      text: 'bulk',
      createdAt: clock.read(),
      publishedAt: clock.read(),
    }));
    const insert = (tx: RawSql) =>
      repo.insertPublished(
        tx,
        rows.map((row) => ({ ...row, nextSyncAt })),
      );
    if (on === db) await db.$transaction((tx) => insert(tx));
    else await insert(on);
    return rows.map((row) => row.postId);
  }

  it("passes over a paused account's backlog without reading its rows, and takes them once the pause ends", async () => {
    await recordRows('acct_paused', 3000, clock.read());
    const others = await recordRows('acct_free', 3, clock.read());
    await repo.pause(
      { accountId: 'acct_paused', orgId: ORG, platform: 'x' },
      new Date(clock.read().getTime() + 15 * MINUTE),
      'rate limit',
    );
    await db.$executeRawUnsafe('ANALYZE analytics_readings, analytics_account_due');
    clock.advance(MINUTE);

    const sql = createPgRawSql(database.connection, { max: 1, onIdleError: () => undefined });
    try {
      const read = await sql.$transaction(async (tx) => {
        const claimed = await inTransaction(tx).claimDue(clock.read(), 100, 10 * MINUTE);
        const [readings] = await tx.$queryRawUnsafe<{ tuples: number }[]>(
          "SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int AS tuples FROM pg_stat_xact_user_tables WHERE relname = 'analytics_readings'",
        );
        return { claimed, tuples: readings!.tuples };
      });
      expect(read.claimed.map((row) => row.postId).sort()).toEqual([...others].sort());
      // The free account's three rows and a look for its next one, not 3,000 rows of the paused one.
      expect(read.tuples).toBeLessThan(20);
    } finally {
      await sql.end();
    }

    // Past the pause the most overdue account comes first: the paused one's rows, then the free one's
    // (due again when their lease ended), each row once.
    clock.advance(15 * MINUTE);
    const perAccount = (rows: AnalyticsRecord[]) =>
      rows.reduce<Record<string, number>>(
        (counts, row) => ({ ...counts, [row.accountId]: (counts[row.accountId] ?? 0) + 1 }),
        {},
      );
    const resumed = await repo.claimDue(clock.read(), 1000, 10 * MINUTE);
    expect(perAccount(resumed)).toEqual({ acct_paused: 1000 });
    const rest = await repo.claimDue(clock.read(), 5000, 10 * MINUTE);
    expect(perAccount(rest)).toEqual({ acct_paused: 2000, acct_free: 3 });
    expect(new Set([...resumed, ...rest].map((row) => row.id)).size).toBe(3003);
    expect(await repo.claimDue(clock.read(), 5000, 10 * MINUTE)).toHaveLength(0);
  });

  it('two replicas claiming at once never take the same row, and between them take every due row once', async () => {
    for (const account of ['acct_r1', 'acct_r2', 'acct_r3']) await recordRows(account, 200, clock.read());
    const pools = [0, 1].map(() => createPgRawSql(database.connection, { max: 2, onIdleError: () => undefined }));
    try {
      const replicas = pools.map((pool) => new AnalyticsRepository(db, pool));
      const [a, b] = await Promise.all(replicas.map((replica) => replica.claimDue(clock.read(), 250, 10 * MINUTE)));
      const rest = await replicas[0]!.claimDue(clock.read(), 1000, 10 * MINUTE);
      const ids = [...a!, ...b!, ...rest].map((row) => row.id);
      expect(ids).toHaveLength(600);
      expect(new Set(ids).size).toBe(600);
      expect(await replicas[1]!.claimDue(clock.read(), 1000, 10 * MINUTE)).toHaveLength(0);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it("claims a row when a save brings its next read before the rest of its account's", async () => {
    await recordRows('acct_soon', 2, clock.read());
    const claimed = await repo.claimDue(clock.read(), 100, 10 * MINUTE);
    expect(claimed).toHaveLength(2);
    const [retried, later] = claimed;
    const at = (ms: number) => new Date(clock.read().getTime() + ms);
    await repo.updateMany([
      { id: retried!.id, update: { syncStatus: 'pending', warnings: [], errorMessage: null, nextSyncAt: at(MINUTE) } },
      {
        id: later!.id,
        update: {
          syncStatus: 'synced',
          metrics: { like_count: 1 },
          warnings: [],
          errorMessage: null,
          lastUpdatedAt: clock.read(),
          staleAfter: at(15 * MINUTE),
          nextSyncAt: at(15 * MINUTE),
        },
      },
    ]);
    clock.advance(MINUTE);
    expect((await repo.claimDue(clock.read(), 100, 10 * MINUTE)).map((row) => row.id)).toEqual([retried!.id]);
    clock.advance(14 * MINUTE);
    expect((await repo.claimDue(clock.read(), 100, 10 * MINUTE)).map((row) => row.id)).toContain(later!.id);
  });

  it("a row recorded while a claim moves its account's due time on is claimed on its own time, not the lease's", async () => {
    await recordRows('acct_race', 1, clock.read());
    const other = createPgRawSql(database.connection, { max: 1, onIdleError: () => undefined });
    let recorded!: () => void;
    let release!: () => void;
    const isRecorded = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      // Another event for the account, recorded but not yet committed while the claim runs.
      const recording = other.$transaction(async (tx) => {
        const [postId] = await recordRows('acct_race', 1, new Date(clock.read().getTime() + MINUTE), tx);
        recorded();
        await released;
        return postId!;
      });
      await isRecorded;
      let claimDone = false;
      const claiming = repo.claimDue(clock.read(), 100, 10 * MINUTE).then((rows) => {
        claimDone = true;
        return rows;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The claim waits for the event's transaction before it reads when the account is next due.
      expect(claimDone).toBe(false);
      release();
      const postId = await recording;
      expect(await claiming).toHaveLength(1);

      clock.advance(MINUTE);
      expect((await repo.claimDue(clock.read(), 100, 10 * MINUTE)).map((row) => row.postId)).toEqual([postId]);
    } finally {
      release();
      await other.end();
    }
  });

  it("numbers an organization's rows 1, 2, 3... in event order without a gap, counting only new rows, also when events race (one statement per event, on a plain pg pool)", async () => {
    const org = `org_seq_${Date.now()}`;
    const sql = createPgRawSql(database.connection, { max: 4, onIdleError: () => undefined });
    const record = (postId: string, targets: { accountId: string; platformPostId: string }[]) =>
      new PublishedRecorder({ db: sql, repo, wake: () => undefined }).record(
        publishedEvent(
          org,
          postId,
          targets.map((target) => ({ ...target, provider: 'x' })),
          clock.read(),
        ),
      );
    try {
      const first = newPostId();
      await record(
        first,
        ['a1', 'a2', 'a3'].map((accountId) => ({ accountId, platformPostId: `${accountId}-1` })),
      );
      // a2 exists already: only a4 is new.
      await record(
        first,
        ['a2', 'a4'].map((accountId) => ({ accountId, platformPostId: `${accountId}-1` })),
      );
      await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          record(
            newPostId(),
            ['b1', 'b2', 'b3'].map((accountId) => ({ accountId, platformPostId: `${accountId}-${n}` })),
          ),
        ),
      );

      const rows = await db.$queryRawUnsafe<{ seq: bigint; post_id: string; account_id: string }[]>(
        'SELECT seq, post_id, account_id FROM analytics_rows WHERE org_id = $1 ORDER BY seq',
        org,
      );
      expect(rows.map((row) => Number(row.seq))).toEqual(Array.from({ length: 4 + 24 }, (_, n) => n + 1));
      expect(rows.slice(0, 4).map((row) => [row.post_id, row.account_id])).toEqual([
        [first, 'a1'],
        [first, 'a2'],
        [first, 'a3'],
        [first, 'a4'],
      ]);
      const [counter] = await db.$queryRawUnsafe<{ rows: bigint }[]>(
        'SELECT rows FROM analytics_org_counters WHERE org_id = $1',
        org,
      );
      expect(Number(counter!.rows)).toBe(28);
    } finally {
      await sql.end();
    }
  });

  it('records the events that arrive together in one transaction: each organization numbered in arrival order, a redelivery inside or before the batch skipped', async () => {
    const orgs = [`org_batch_b_${Date.now()}`, `org_batch_a_${Date.now()}`];
    const sql = createPgRawSql(database.connection, { max: 2, onIdleError: () => undefined });
    let transactions = 0;
    const counting: TransactionalClient = {
      ...sql,
      $transaction: (fn) => {
        transactions += 1;
        return sql.$transaction(fn);
      },
    };
    const wakes: number[] = [];
    const recorder = new PublishedRecorder({
      db: counting,
      repo,
      wake: (delayMs) => wakes.push(delayMs),
      firstReadDelayMs: MINUTE,
    });
    const event = (n: number) =>
      publishedEvent(
        orgs[n % 2]!,
        newPostId(),
        [{ accountId: `acct_${n}`, provider: 'x', platformPostId: `tw_${n}` }],
        clock.read(),
      );
    const events = Array.from({ length: 20 }, (_, n) => event(n));
    try {
      await recorder.record(events[3]!); // processed before: its redelivery below adds nothing
      transactions = 0;
      wakes.length = 0;
      await Promise.all([...events, events[5]!].map((e) => recorder.record(e))); // events[5] twice in the batch
      expect(transactions).toBe(1);
      expect(wakes).toHaveLength(1); // one wake for the batch (its delay counts from the real clock, not the test's)
      for (const [index, org] of orgs.entries()) {
        const rows = await db.$queryRawUnsafe<{ seq: bigint; post_id: string }[]>(
          'SELECT seq, post_id FROM analytics_rows WHERE org_id = $1 ORDER BY seq',
          org,
        );
        const expected = events.filter((_, n) => n % 2 === index).map((e) => e.payload.id);
        // Event 3 was recorded first, alone: seq 1 of its organization; the rest follow in arrival order.
        expect(rows.map((row) => row.post_id)).toEqual(
          index === 1 ? [events[3]!.payload.id, ...expected.filter((id) => id !== events[3]!.payload.id)] : expected,
        );
        expect(rows.map((row) => Number(row.seq))).toEqual(rows.map((_, n) => n + 1));
        const [counter] = await db.$queryRawUnsafe<{ rows: bigint }[]>(
          'SELECT rows FROM analytics_org_counters WHERE org_id = $1',
          org,
        );
        expect(Number(counter!.rows)).toBe(10);
      }
      const [inbox] = await db.$queryRawUnsafe<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM processed_messages WHERE message_id = ANY($1::text[])',
        events.map((e) => e.message_id),
      );
      expect(inbox!.n).toBe(20);
    } finally {
      await sql.end();
    }
  });

  it('with a linger, records events that trickle in by one transaction, and starts one that holds maxEvents at once', async () => {
    const org = `org_linger_${Date.now()}`;
    const sql = createPgRawSql(database.connection, { max: 2, onIdleError: () => undefined });
    let transactions = 0;
    const counting: TransactionalClient = {
      ...sql,
      $transaction: (fn) => {
        transactions += 1;
        return sql.$transaction(fn);
      },
    };
    const event = (n: number) =>
      publishedEvent(
        org,
        newPostId(),
        [{ accountId: `acct_${n}`, provider: 'x', platformPostId: `tw_linger_${n}` }],
        clock.read(),
      );
    const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
    try {
      // One event at a time, each a turn or more after the last: without the linger, one transaction each.
      const trickle = new PublishedRecorder({
        db: counting,
        repo,
        wake: () => undefined,
        maxEvents: 20,
        lingerMs: 2000,
      });
      const recorded: Promise<void>[] = [];
      for (let n = 0; n < 4; n += 1) {
        recorded.push(trickle.record(event(n)));
        await pause();
      }
      await Promise.all(recorded);
      expect(transactions).toBe(1);

      // A full group does not wait out a linger of a minute (this test's timeout is far shorter).
      transactions = 0;
      const full = new PublishedRecorder({ db: counting, repo, wake: () => undefined, maxEvents: 2, lingerMs: 60_000 });
      const first = full.record(event(4));
      await pause();
      await Promise.all([first, full.record(event(5))]);
      expect(transactions).toBe(1);
      const [counter] = await db.$queryRawUnsafe<{ rows: bigint }[]>(
        'SELECT rows FROM analytics_org_counters WHERE org_id = $1',
        org,
      );
      expect(Number(counter!.rows)).toBe(6);
    } finally {
      await sql.end();
    }
  });

  it("leaves a post to the background for the first-read delay, then reads a burst of the account's posts in one lookup", async () => {
    const ids = [
      await tweet('acct_burst', 'burst 1'),
      await tweet('acct_burst', 'burst 2'),
      await tweet('acct_burst', 'burst 3'),
    ];
    const wakes: number[] = [];
    const postIds: string[] = [];
    for (const id of ids) {
      const postId = newPostId();
      postIds.push(postId);
      await new PublishedRecorder({
        db,
        repo,
        wake: (delayMs) => wakes.push(delayMs),
        firstReadDelayMs: MINUTE,
      }).record(
        publishedEvent(ORG, postId, [{ accountId: 'acct_burst', provider: 'x', platformPostId: id }], clock.read()),
      );
    }
    expect(wakes).toHaveLength(3);
    expect((await nextSyncOf((await rowsOf(postIds[0]!))[0]!))?.getTime()).toBe(clock.read().getTime() + MINUTE);
    expect(await sync().runOnce()).toBe(0);
    clock.advance(MINUTE);
    expect(await sync().runOnce()).toBe(3);
    expect(xReads).toEqual([expect.arrayContaining(ids)]);
    for (const postId of postIds) expect((await rowsOf(postId))[0]!.syncStatus).toBe('synced');
  });

  it('refreshes on the cadence of the post age: 15 min the first day, hourly the first week', async () => {
    const id = await tweet('acct_b', 'cadence');
    await setLikes(id, 1);
    const postId = await publish([{ accountId: 'acct_b', platformPostId: id }]);
    const background = sync();
    expect(await background.runOnce()).toBe(1);
    let [row] = await rowsOf(postId);
    expect(row).toEqual(
      expect.objectContaining({ syncStatus: 'synced', metrics: expect.objectContaining({ like_count: 1 }) }),
    );
    expect(row!.staleAfter!.toISOString()).toBe('2026-06-01T12:15:00.000Z');

    await setLikes(id, 2);
    clock.advance(10 * MINUTE);
    expect(await background.runOnce()).toBe(0);
    clock.advance(6 * MINUTE);
    expect(await background.runOnce()).toBe(1);
    [row] = await rowsOf(postId);
    expect(row!.metrics.like_count).toBe(2);
    expect(row!.staleAfter!.toISOString()).toBe('2026-06-01T12:31:00.000Z');

    // Two days later the post is read hourly.
    clock.set(new Date('2026-06-03T12:00:00Z'));
    expect(await background.runOnce()).toBe(1);
    [row] = await rowsOf(postId);
    expect(row!.staleAfter!.toISOString()).toBe('2026-06-03T13:00:00.000Z');
    clock.advance(59 * MINUTE);
    expect(await background.runOnce()).toBe(0);
  });

  it('serves fresh rows from the cache and refreshes stale ones on read; refresh=true bypasses the cache', async () => {
    const id = await tweet('acct_c', 'stale');
    await setLikes(id, 5);
    const postId = await publish([{ accountId: 'acct_c', platformPostId: id }]);
    const read = (refresh = false) =>
      listAnalytics(deps(), { orgId: ORG, filters: { postId }, page: 1, limit: 25, refresh });
    expect((await read()).items[0]).toEqual(
      expect.objectContaining({
        sync_status: 'synced',
        metrics: expect.objectContaining({ like_count: 5 }),
        last_updated_at: '2026-06-01T12:00:00.000Z',
        stale_after: '2026-06-01T12:15:00.000Z',
      }),
    );
    await setLikes(id, 6);
    clock.advance(14 * MINUTE);
    expect((await read()).items[0]!.metrics.like_count).toBe(5);
    expect((await read(true)).items[0]!.metrics.like_count).toBe(6);
    await setLikes(id, 7);
    clock.advance(16 * MINUTE);
    expect((await read()).items[0]).toEqual(
      expect.objectContaining({
        metrics: expect.objectContaining({ like_count: 7 }),
        last_updated_at: '2026-06-01T12:30:00.000Z',
      }),
    );
  });

  it('answers within the read budget: what cannot finish stays pending and finishes in the background', async () => {
    const id = await tweet('acct_d', 'budget');
    await setLikes(id, 9);
    const postId = await publish([{ accountId: 'acct_d', platformPostId: id }]);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: NetworkAnalytics = {
      ...analytics,
      x: {
        network: 'x',
        read: async (input) => {
          await gate;
          return analytics.x.read(input);
        },
      },
    };
    const page = await listAnalytics(deps({ analytics: slow, readBudgetMs: 50 }), {
      orgId: ORG,
      filters: { postId },
      page: 1,
      limit: 25,
      refresh: false,
    });
    expect(page.items[0]).toEqual(expect.objectContaining({ sync_status: 'pending', metrics: {} }));
    release();
    await waitFor(async () => (await rowsOf(postId))[0]!.syncStatus !== 'pending', {
      what: 'the read under way to finish in the background',
    });
    expect((await rowsOf(postId))[0]).toEqual(
      expect.objectContaining({ syncStatus: 'synced', metrics: expect.objectContaining({ like_count: 9 }) }),
    );
  });

  it('reads many posts of one account in one batched call, and fails only the post the network lost', async () => {
    const ids = [await tweet('acct_e', 'one'), await tweet('acct_e', 'two'), await tweet('acct_e', 'three')];
    const postIds = [];
    for (const id of ids) postIds.push(await publish([{ accountId: 'acct_e', platformPostId: id }]));
    const lost = await publish([{ accountId: 'acct_e', platformPostId: '1999999999999999999' }]);
    await sync().runOnce();
    expect(xReads.filter((read) => read.some((id) => ids.includes(id)))).toEqual([
      expect.arrayContaining([...ids, '1999999999999999999']),
    ]);
    for (const postId of postIds) expect((await rowsOf(postId))[0]!.syncStatus).toBe('synced');
    expect((await rowsOf(lost))[0]).toEqual(
      expect.objectContaining({ syncStatus: 'failed', errorMessage: expect.stringContaining('Could not find tweet') }),
    );
  });

  it('defers a rate-limited account without failing the read or the other accounts', async () => {
    const limited = await tweet('acct_f', 'limited');
    const fine = await tweet('acct_g', 'fine');
    const limitedPost = await publish([{ accountId: 'acct_f', platformPostId: limited }]);
    const finePost = await publish([{ accountId: 'acct_g', platformPostId: fine }]);
    await sandbox.fault('x', 'rate_limit', 1, 120);
    // Accounts run one at a time here so the single armed 429 lands on the first (acct_f, claimed first).
    const background = sync({ concurrency: 1 });
    expect(await background.runOnce()).toBe(2);
    const [limitedRow] = await rowsOf(limitedPost);
    const [fineRow] = await rowsOf(finePost);
    expect([limitedRow!.syncStatus, fineRow!.syncStatus].sort()).toEqual(['pending', 'synced']);
    const deferred = limitedRow!.syncStatus === 'pending' ? limitedPost : finePost;
    const pausedAccount = deferred === limitedPost ? 'acct_f' : 'acct_g';
    const paused = await repo.pausedUntil([pausedAccount], clock.read());
    expect(paused.get(pausedAccount)!.getTime()).toBeGreaterThan(clock.read().getTime() + 100_000);

    // A read while paused answers 200 with the row as it was, and calls nothing.
    xReads = [];
    clock.advance(MINUTE);
    const page = await listAnalytics(deps(), {
      orgId: ORG,
      filters: { postId: deferred },
      page: 1,
      limit: 25,
      refresh: true,
    });
    expect(page.items[0]!.sync_status).toBe('pending');
    expect(xReads).toEqual([]);
    expect(await background.runOnce()).toBe(0);

    clock.advance(2 * MINUTE);
    expect(await background.runOnce()).toBe(1);
    expect((await rowsOf(deferred))[0]!.syncStatus).toBe('synced');
  });

  it('marks requires_reconnect when the account needs reconnecting or the network revoked the token', async () => {
    const gone = await tweet('acct_h', 'reconnect');
    const revoked = await tweet('acct_i', 'revoked');
    const gonePost = await publish([{ accountId: 'acct_h', platformPostId: gone }]);
    accountsFail.set('acct_h', new AppError('conflict', 'The x account acct_h needs reconnecting (health: revoked).'));
    await sync().runOnce();
    expect((await rowsOf(gonePost))[0]).toEqual(
      expect.objectContaining({
        syncStatus: 'requires_reconnect',
        errorMessage: expect.stringContaining('needs reconnecting'),
      }),
    );

    const revokedPost = await publish([{ accountId: 'acct_i', platformPostId: revoked }]);
    // A revoked X token keeps answering 401, which X also sends for an expired one: renewed once, the second 401 settles it.
    await sandbox.fault('x', 'token_revoked', 2);
    await sync().runOnce();
    expect(credentialCalls.filter((call) => call.accountId === 'acct_i').map((call) => call.force)).toEqual([
      false,
      true,
    ]);
    expect((await rowsOf(revokedPost))[0]).toEqual(
      expect.objectContaining({ syncStatus: 'requires_reconnect', errorMessage: expect.stringContaining('X') }),
    );
  });

  it('renews an expired token once and reads again', async () => {
    const id = await tweet('acct_j', 'expired');
    await setLikes(id, 4);
    const postId = await publish([{ accountId: 'acct_j', platformPostId: id }]);
    await sandbox.fault('x', 'token_expired', 1);
    await sync().runOnce();
    expect(credentialCalls.filter((call) => call.accountId === 'acct_j').map((call) => call.force)).toEqual([
      false,
      true,
    ]);
    expect((await rowsOf(postId))[0]).toEqual(
      expect.objectContaining({ syncStatus: 'synced', metrics: expect.objectContaining({ like_count: 4 }) }),
    );
  });

  it('fails rows of a deleted account, and keeps rows as they are when accounts is unreachable', async () => {
    const a = await tweet('acct_k', 'deleted');
    const b = await tweet('acct_l', 'unreachable');
    const deleted = await publish([{ accountId: 'acct_k', platformPostId: a }]);
    const unreachable = await publish([{ accountId: 'acct_l', platformPostId: b }]);
    accountsFail.set('acct_k', new AppError('not_found', 'The account acct_k was not found.'));
    accountsFail.set('acct_l', new AppError('service_unavailable', 'accounts did not answer', { retryable: true }));
    await sync().runOnce();
    expect((await rowsOf(deleted))[0]).toEqual(
      expect.objectContaining({ syncStatus: 'failed', errorMessage: 'The X account is no longer connected.' }),
    );
    const [row] = await rowsOf(unreachable);
    expect(row).toEqual(expect.objectContaining({ syncStatus: 'pending', errorMessage: null }));
    expect((await nextSyncOf(row!))?.getTime()).toBe(clock.read().getTime() + 5 * MINUTE);
  });

  it('runs passes by itself once started, woken by new rows, until stopped', async () => {
    const id = await tweet('acct_n', 'loop');
    await setLikes(id, 3);
    const background = new BackgroundSync({
      deps: deps(),
      repo,
      logger,
      intervalMs: 60_000,
      batchSize: 100,
      leaseMs: 10 * MINUTE,
      stopWaitMs: 2000,
    });
    background.start();
    try {
      const postId = newPostId();
      await new PublishedRecorder({ db, repo, wake: () => background.wake() }).record(
        publishedEvent(ORG, postId, [{ accountId: 'acct_n', provider: 'x', platformPostId: id }], clock.read()),
      );
      await waitFor(async () => (await rowsOf(postId))[0]!.syncStatus !== 'pending', {
        what: 'the background pass to read the row',
      });
      expect((await rowsOf(postId))[0]).toEqual(
        expect.objectContaining({ syncStatus: 'synced', metrics: expect.objectContaining({ like_count: 3 }) }),
      );
    } finally {
      await background.stop();
    }
  });

  it('a wake for a row due later brings the next pass forward to that time, not later', async () => {
    const id = await tweet('acct_o', 'wake later');
    await setLikes(id, 4);
    const background = new BackgroundSync({
      deps: deps(),
      repo,
      logger,
      intervalMs: 60_000,
      batchSize: 100,
      leaseMs: 10 * MINUTE,
      stopWaitMs: 2000,
    });
    background.start();
    try {
      // Let the first pass run and schedule the next one a minute away.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const postId = newPostId();
      await new PublishedRecorder({ db, repo, wake: () => background.wake(300) }).record(
        publishedEvent(ORG, postId, [{ accountId: 'acct_o', provider: 'x', platformPostId: id }], clock.read()),
      );
      expect((await rowsOf(postId))[0]!.syncStatus).toBe('pending');
      await waitFor(async () => (await rowsOf(postId))[0]!.syncStatus !== 'pending', {
        what: 'the background pass to read the row',
      });
      expect((await rowsOf(postId))[0]).toEqual(
        expect.objectContaining({ syncStatus: 'synced', metrics: expect.objectContaining({ like_count: 4 }) }),
      );
    } finally {
      await background.stop();
    }
  });

  it('takes no more readings a second than its budget: a full pass holds the next one, a wake included, and the rest wait their turn', async () => {
    const postIds: string[] = [];
    for (let n = 0; n < 6; n += 1)
      postIds.push(
        await publish([{ accountId: 'acct_budget', platformPostId: await tweet('acct_budget', `budget ${n}`) }]),
      );
    // Each claim's start and size, through the repository the passes claim with.
    const claims: { at: number; rows: number }[] = [];
    const timed = Object.assign(Object.create(repo) as AnalyticsRepository, {
      claimDue: async (now: Date, limit: number, leaseMs: number) => {
        const at = Date.now();
        const rows = await repo.claimDue(now, limit, leaseMs);
        claims.push({ at, rows: rows.length });
        return rows;
      },
    });
    // Two readings a second in passes of two: a pass a second at most.
    const background = new BackgroundSync({
      deps: deps(),
      repo: timed,
      logger,
      intervalMs: 60_000,
      batchSize: 2,
      leaseMs: 10 * MINUTE,
      stopWaitMs: 2000,
      maxReadsPerSecond: 2,
    });
    // Every pass the sync schedules, with when it set it to run and when the budget frees the next
    // pass (both its own decisions, read from it as it schedules), and the claim before it.
    const internals = background as unknown as {
      schedule(delayMs: number): void;
      nextPassAt: number | undefined;
      budgetFreeAt: number;
    };
    const scheduled: { runAt: number; budgetFreeAt: number; after: (typeof claims)[number] | undefined }[] = [];
    const schedule = internals.schedule.bind(background);
    internals.schedule = (delayMs: number) => {
      schedule(delayMs);
      scheduled.push({ runAt: internals.nextPassAt!, budgetFreeAt: internals.budgetFreeAt, after: claims.at(-1) });
    };
    background.start();
    try {
      await waitFor(() => claims.length > 0, { what: 'the first claim' });
      // New rows wake the sync; the budget holds the wake back as it holds a full pass's follow-up.
      background.wake();
      const synced = async () =>
        (await Promise.all(postIds.map(rowsOf))).filter(([row]) => row!.syncStatus === 'synced').length;
      await waitFor(async () => (await synced()) === 6, {
        what: 'the six rows synced, two a second',
        timeoutMs: 20_000,
      });
    } finally {
      await background.stop();
    }
    const full = claims.filter((claim) => claim.rows > 0);
    expect(full.map((claim) => claim.rows)).toEqual([2, 2, 2]);
    // A pass of two at two a second frees the budget a second after that pass began (its claim is
    // made as it begins), and every pass scheduled after it, the wake's included, runs no sooner:
    // never back to back as without a budget.
    const held = scheduled.filter((entry) => entry.after !== undefined && entry.after.rows > 0);
    expect(held.length).toBeGreaterThanOrEqual(full.length);
    for (const entry of held) {
      expect(entry.budgetFreeAt - entry.after!.at).toBeGreaterThanOrEqual(990);
      expect(entry.runAt).toBeGreaterThanOrEqual(entry.budgetFreeAt);
    }
  });

  it('refreshes on read a row its budget leaves waiting: the background falls behind, a read of the row does not', async () => {
    const ids = [await tweet('acct_behind', 'behind 0'), await tweet('acct_behind', 'behind 1')];
    for (const id of ids) await setLikes(id, 3);
    const due = new Date(clock.read().getTime() - 5 * MINUTE);
    const postIds = [
      await publish([{ accountId: 'acct_behind', platformPostId: ids[0]! }], due),
      await publish([{ accountId: 'acct_behind', platformPostId: ids[1]! }], due),
    ];
    let claimed = 0;
    const counted = Object.assign(Object.create(repo) as AnalyticsRepository, {
      claimDue: async (now: Date, limit: number, leaseMs: number) => {
        const rows = await repo.claimDue(now, limit, leaseMs);
        claimed += rows.length;
        return rows;
      },
    });
    // One reading a minute: after its first pass of one row the background waits a minute.
    const background = new BackgroundSync({
      deps: deps(),
      repo: counted,
      logger,
      intervalMs: 60_000,
      batchSize: 1,
      leaseMs: 10 * MINUTE,
      stopWaitMs: 2000,
      maxReadsPerSecond: 1 / 60,
    });
    background.start();
    try {
      await waitFor(() => claimed > 0, { what: 'the first claim' });
      const waiting = [];
      for (const postId of postIds) if ((await rowsOf(postId))[0]!.syncStatus === 'pending') waiting.push(postId);
      expect(waiting.length).toBeGreaterThan(0);
      for (const postId of waiting) {
        const page = await listAnalytics(deps(), {
          orgId: ORG,
          filters: { postId },
          page: 1,
          limit: 25,
          refresh: false,
        });
        expect(page.items[0]).toEqual(
          expect.objectContaining({ sync_status: 'synced', metrics: expect.objectContaining({ like_count: 3 }) }),
        );
      }
      expect(claimed).toBe(1);
    } finally {
      await background.stop();
    }
  });

  it('says how far behind the background is: from the earliest reading due, a paused account left out, 0 once read', async () => {
    const now = clock.read().getTime();
    await publish(
      [{ accountId: 'acct_lag', platformPostId: await tweet('acct_lag', 'lag due') }],
      new Date(now - 90_000),
    );
    await publish(
      [{ accountId: 'acct_lag', platformPostId: await tweet('acct_lag', 'lag later') }],
      new Date(now + 60_000),
    );
    await publish(
      [{ accountId: 'acct_lag_paused', platformPostId: await tweet('acct_lag_paused', 'lag paused') }],
      new Date(now - 300_000),
    );
    await repo.pause({ accountId: 'acct_lag_paused', orgId: ORG, platform: 'x' }, new Date(now + HOUR), 'rate limited');
    expect(await repo.backgroundLagSeconds(clock.read())).toBeCloseTo(90, 3);
    expect(await sync().runOnce()).toBe(1);
    expect(await repo.backgroundLagSeconds(clock.read())).toBe(0);
    // The later post falls due: behind by as long as it has been due.
    expect(await repo.backgroundLagSeconds(clock.advance(2 * MINUTE))).toBeCloseTo(60, 3);
  });

  it('reads old posts weekly', async () => {
    const id = await tweet('acct_m', 'old');
    const postId = await publish(
      [{ accountId: 'acct_m', platformPostId: id }],
      new Date(clock.read().getTime() - 40 * DAY),
    );
    await sync().runOnce();
    const [row] = await rowsOf(postId);
    expect(row!.staleAfter!.getTime() - clock.read().getTime()).toBe(7 * DAY);
  });
});
