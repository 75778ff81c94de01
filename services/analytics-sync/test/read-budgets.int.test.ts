// The network reads list reads may start: shared per row (in a process and across replicas), at most
// once per minimum age, within an organization's budget, and never after the reply is due. Network
// calls are counted by the sandbox itself: its X lookup window per user (x-rate-limit-remaining).
import { createLogger } from '@svc/logger';
import type { NetworkAnalytics } from '@svc/providers';
import { waitFor } from '@svc/testing';
import { testProviders, type RunningSandbox } from '../../../libs/providers/test/support/sandbox.ts';
import type { AnalyticsRepository } from '../src/data/analytics.repository.ts';
import type { AccountsClient } from '../src/domain/accounts-client.ts';
import { listAnalytics, type ListDeps } from '../src/domain/list-analytics.ts';
import { NetworkReadGate } from '../src/domain/network-read-gate.ts';
import { PublishedRecorder } from '../src/domain/record-published.ts';
import { ReadRefresher, type ReadRefreshSettings } from '../src/domain/read-refresher.ts';
import type { RefreshDeps } from '../src/domain/refresh-rows.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';
import { ManualClock, newPostId, openAnalyticsTestbed, publishedEvent, type AnalyticsTestbed } from './support.ts';

const MINUTE = 60_000;

describe('analytics list reads: network reads shared and budgeted', () => {
  let testbed: AnalyticsTestbed | undefined;
  let db: PrismaClient;
  let sandbox: RunningSandbox;
  let repo: AnalyticsRepository;
  let analytics: NetworkAnalytics;
  let clock: ManualClock;
  const tokens = new Map<string, string>();
  const logger = createLogger({ service: 'analytics-test', level: 'silent' });
  const accounts: AccountsClient = {
    credentials: async (_orgId, accountId) => ({
      account_id: accountId,
      provider: 'x',
      access_token: tokens.get(accountId)!,
      extras: {},
      token_expires_at: null,
    }),
  };

  /** One replica's list reads: its own gate and in-process sharing, the database's claims and budgets. */
  function replica(settings: Partial<ReadRefreshSettings> = {}, overrides: Partial<RefreshDeps> = {}): ListDeps {
    const deps: RefreshDeps = {
      repo,
      accounts,
      analytics,
      clock: clock.read,
      logger,
      settings: { rateLimitDeferMs: 15 * MINUTE, transientRetryMs: 5 * MINUTE },
      concurrency: 4,
      gate: new NetworkReadGate({ concurrency: 16, perSecond: 0 }),
      ...overrides,
    };
    return {
      repo,
      clock: clock.read,
      readBudgetMs: 10_000,
      refresher: new ReadRefresher(deps, { minRefreshAgeMs: MINUTE, orgReadsPerMinute: 1000, ...settings }),
    };
  }
  const read = (deps: ListDeps, orgId: string, postId: string, refresh = true) =>
    listAnalytics(deps, { orgId, filters: { postId }, page: 1, limit: 25, refresh });

  /** X lookups the sandbox has counted for the account's user in its window, this probe included. */
  async function xLookups(accountId: string): Promise<number> {
    const response = await fetch(`${sandbox.baseUrl}/x/2/tweets?ids=1`, {
      headers: { authorization: `Bearer ${tokens.get(accountId)!}` },
    });
    await response.arrayBuffer();
    return 900 - Number(response.headers.get('x-rate-limit-remaining'));
  }
  /** The X lookups `work` made for the account, counted by the sandbox. */
  async function lookupsDuring(accountId: string, work: () => Promise<unknown>): Promise<number> {
    const before = await xLookups(accountId);
    await work();
    return (await xLookups(accountId)) - before - 1;
  }

  /** A post on X in the sandbox by the account, recorded as published for the organization; returns our post id. */
  async function published(orgId: string, accountId: string, likes: number): Promise<string> {
    tokens.set(accountId, tokens.get(accountId) ?? `tok-${accountId}-${Date.now()}`);
    const { platformPostId } = await testProviders(sandbox.baseUrl).x.publish.post({
      credentials: { accessToken: tokens.get(accountId)! },
      text: `budget ${Date.now()} ${Math.random()}`,
      media: [],
    });
    await sandbox.setMetrics('x', platformPostId, {
      impression_count: likes * 10,
      like_count: likes,
      retweet_count: 0,
      reply_count: 0,
      quote_count: 0,
      bookmark_count: 0,
    });
    const postId = newPostId();
    await new PublishedRecorder({ db, repo, wake: () => undefined }).record(
      publishedEvent(orgId, postId, [{ accountId, provider: 'x', platformPostId }], clock.read()),
    );
    return postId;
  }

  beforeAll(async () => {
    testbed = await openAnalyticsTestbed('analytics-budgets');
    ({ db, repo, sandbox, analytics } = testbed);
  }, 60_000);

  afterAll(async () => testbed?.close());

  beforeEach(() => {
    clock = new ManualClock(new Date('2026-06-01T12:00:00Z'));
  });

  it('30 concurrent refresh=true reads of one X post, on two replicas, ask X once; a read within the minimum age asks nothing', async () => {
    const postId = await published('org_burst', 'acct_burst', 5);
    const [one, two] = [replica(), replica()];
    expect(await lookupsDuring('acct_burst', () => read(one, 'org_burst', postId, false))).toBe(1);

    clock.advance(2 * MINUTE);
    await sandbox.setMetrics('x', (await read(one, 'org_burst', postId, false)).items[0]!.platform_post_id, {
      impression_count: 60,
      like_count: 6,
      retweet_count: 0,
      reply_count: 0,
      quote_count: 0,
      bookmark_count: 0,
    });
    let pages: Awaited<ReturnType<typeof read>>[] = [];
    const calls = await lookupsDuring('acct_burst', async () => {
      pages = await Promise.all(
        Array.from({ length: 30 }, (_, n) => read(n % 2 === 0 ? one : two, 'org_burst', postId)),
      );
    });
    expect(calls).toBe(1);
    // Every read answered from the one reading or the cache, none failed.
    for (const page of pages) expect(page.items[0]!.sync_status).toBe('synced');
    expect((await read(one, 'org_burst', postId, false)).items[0]!.metrics.like_count).toBe(6);

    // refresh=true within the minimum age serves the cached row.
    clock.advance(MINUTE - 1);
    expect(await lookupsDuring('acct_burst', () => read(two, 'org_burst', postId))).toBe(0);
    clock.advance(1);
    expect(await lookupsDuring('acct_burst', () => read(two, 'org_burst', postId))).toBe(1);
  });

  it('an organization over its budget gets its cached rows and no network call; another organization is still served', async () => {
    const deps = replica({ orgReadsPerMinute: 2 });
    const spent = [await published('org_heavy', 'acct_heavy', 1), await published('org_heavy', 'acct_heavy', 2)];
    const over = await published('org_heavy', 'acct_heavy', 3);
    const other = await published('org_light', 'acct_light', 4);
    for (const postId of spent) expect((await read(deps, 'org_heavy', postId)).items[0]!.sync_status).toBe('synced');

    let page: Awaited<ReturnType<typeof read>> | undefined;
    expect(
      await lookupsDuring('acct_heavy', async () => {
        page = await read(deps, 'org_heavy', over);
      }),
    ).toBe(0);
    expect(page!.items[0]).toEqual(expect.objectContaining({ sync_status: 'pending', metrics: {} }));

    expect(
      await lookupsDuring('acct_light', async () => {
        page = await read(deps, 'org_light', other);
      }),
    ).toBe(1);
    expect(page!.items[0]).toEqual(
      expect.objectContaining({ sync_status: 'synced', metrics: expect.objectContaining({ like_count: 4 }) }),
    );

    // The next minute brings a fresh budget.
    clock.advance(MINUTE);
    expect((await read(deps, 'org_heavy', over)).items[0]).toEqual(
      expect.objectContaining({ sync_status: 'synced', metrics: expect.objectContaining({ like_count: 3 }) }),
    );
  });

  it('starts no network call once the reply is due: the waiting account is left to the background', async () => {
    const first = await published('org_late', 'acct_late_1', 1);
    const second = await published('org_late', 'acct_late_2', 2);
    // One call at a time in this process, and the first one held: the second account waits at the gate.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const holding: NetworkAnalytics = {
      ...analytics,
      x: {
        network: 'x',
        read: async (input) => {
          calls += 1;
          await held;
          return analytics.x.read(input);
        },
      },
    };
    const gate = new NetworkReadGate({ concurrency: 1, perSecond: 0 });
    const deps = { ...replica({}, { analytics: holding, gate }), readBudgetMs: 50 };
    const page = await listAnalytics(deps, { orgId: 'org_late', filters: {}, page: 1, limit: 25, refresh: true });
    expect(page.items.map((item) => item.sync_status)).toEqual(['pending', 'pending']);
    expect(gate.waiting).toBe(0);
    release();
    // The call under way finishes and saves; the other account's row was never read and is due for the background.
    const statuses = async () => (await repo.page('org_late', {}, 1, 25)).rows.map((row) => row.syncStatus).sort();
    await waitFor(async () => (await statuses()).includes('synced'), { what: 'the read under way to save its row' });
    expect(await statuses()).toEqual(['pending', 'synced']);
    expect(calls).toBe(1);
    const due = await repo.claimDue(clock.read(), 100, 10 * MINUTE);
    expect(due.map((row) => row.postId)).toHaveLength(1);
    expect([first, second]).toContain(due[0]!.postId);
  });
});
