// Post analytics end to end: publish through the API to every network, the publisher's
// post.published event creates the rows in analytics-sync, and GET /v1/analytics/posts reads them
// (and the networks, through the sandbox) exactly as an API user would.
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import {
  connectAccount,
  NETWORKS,
  sleep,
  validBody,
  waitForFinal,
  type Network,
  type PostBody,
} from '../publishing/publishing-support.ts';

interface Row {
  post_id: string;
  account_id?: string;
  platform: string;
  platform_post_id: string;
  platform_post_url?: string;
  text?: string;
  created_at: string;
  published_at?: string;
  metrics: Record<string, number>;
  warnings: string[];
  sync_status: string;
  error_message: string | null;
  last_updated_at?: string;
  stale_after?: string;
}
interface Page {
  items: Row[];
  total: number;
  page: number;
  limit: number;
  overview: { posts: number; metrics: Record<string, number> };
}

describe('analytics: rows from publishing, metrics from the networks', () => {
  let system: SystemHarness;
  let auth: string;
  let post: PostBody;
  const accounts = {} as Record<Network, string>;
  const resultOf = (network: Network) => post.results.find((result) => result.provider === network)!;

  const list = (query: Record<string, string | number | boolean>, credential = auth) =>
    request(system.gateway).get('/v1/analytics/posts').query(query).set('Authorization', credential);
  async function rowsOf(postId: string, count: number): Promise<Row[]> {
    for (let i = 0; i < 200; i += 1) {
      const res = await list({ postId });
      expect(res.status).toBe(200);
      const body = res.body as Page;
      if (body.items.length >= count) return body.items;
      await sleep(50);
    }
    throw new Error(`the analytics rows of post ${postId} did not appear`);
  }

  beforeAll(async () => {
    // The background sync is off: every network read here is one a test asked for.
    // No minimum refresh age: the tests change the sandbox's metrics and read them back at once.
    system = await startSystem({
      services: ['accounts', 'publisher', 'analytics-sync'],
      env: { ANALYTICS_BACKGROUND_SYNC: 'false', ANALYTICS_READ_BUDGET_MS: '8000', ANALYTICS_MIN_REFRESH_AGE_MS: '0' },
    });
    auth = `Bearer ${await system.token()}`;
    for (const network of NETWORKS) accounts[network] = await connectAccount(system, auth, network);
    const body = {
      ...validBody(
        system,
        NETWORKS.map((network) => accounts[network]),
      ),
      provider_options: { tiktok: { privacy_level: 'PUBLIC_TO_EVERYONE' } },
    };
    const res = await request(system.gateway).post('/v1/publish').set('Authorization', auth).send(body);
    expect(res.status).toBe(202);
    post = await waitForFinal(system, auth, (res.body as { job_id: string }).job_id);
    expect(post.status).toBe('published');
  }, 90_000);

  afterAll(async () => system?.close());

  it('creates one row per published target with every field the spec requires', async () => {
    const rows = await rowsOf(post.id, 5);
    expect(rows.map((row) => row.platform).sort()).toEqual([...NETWORKS].sort());
    for (const row of rows) {
      const result = post.results.find((item) => item.account_id === row.account_id)!;
      expect(row).toEqual(
        expect.objectContaining({
          post_id: post.id,
          account_id: result.account_id,
          platform: result.provider,
          platform_post_id: result.platform_post_id,
          platform_post_url: result.platform_post_url,
          text: expect.stringContaining('hello'),
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          published_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          metrics: expect.any(Object),
          warnings: expect.any(Array),
          sync_status: expect.stringMatching(/^(synced|partial|pending|failed|requires_reconnect)$/),
        }),
      );
      expect('error_message' in row).toBe(true);
    }
  });

  it('reads the metrics set in each network under the spec keys with refresh=true', async () => {
    await system.sandbox.setMetrics('instagram', resultOf('instagram').platform_post_id!, {
      views: 900,
      reach: 700,
      likes: 40,
      comments: 5,
      shares: 3,
      saved: 2,
    });
    await system.sandbox.setMetrics('facebook', resultOf('facebook').platform_post_id!, {
      post_clicks: 13,
      post_reactions_by_type_total: { like: 12, love: 3 },
      post_engaged_users: 99,
    });
    await system.sandbox.setMetrics('x', resultOf('x').platform_post_id!, {
      impression_count: 5432,
      like_count: 234,
      retweet_count: 50,
      reply_count: 12,
      quote_count: 5,
      bookmark_count: 8,
      url_link_clicks: 89,
    });
    await system.sandbox.setMetrics('linkedin', resultOf('linkedin').platform_post_id!, {
      share_statistics_impression_count: 640,
      share_statistics_unique_impressions_count: 400,
      share_statistics_share_count: 2,
      share_statistics_like_count: 31,
      share_statistics_comment_count: 4,
    });
    await system.sandbox.setMetrics('tiktok', resultOf('tiktok').platform_post_id!, {
      view_count: 345,
      like_count: 12,
      comment_count: 3,
      share_count: 1,
    });

    const res = await list({ postId: post.id, refresh: true });
    expect(res.status).toBe(200);
    const byPlatform = Object.fromEntries((res.body as Page).items.map((row) => [row.platform, row]));
    expect(byPlatform.instagram).toEqual(
      expect.objectContaining({
        sync_status: 'synced',
        warnings: [],
        error_message: null,
        metrics: { views: 900, reach: 700, likes: 40, comments: 5, shares: 3, saved: 2, total_interactions: 50 },
      }),
    );
    expect(byPlatform.facebook).toEqual(
      expect.objectContaining({
        sync_status: 'partial',
        metrics: { post_clicks: 13, post_reactions_by_type_total: 15 },
      }),
    );
    expect(byPlatform.facebook!.warnings).toEqual([expect.stringContaining('post_engaged_users')]);
    expect(byPlatform.x).toEqual(
      expect.objectContaining({
        sync_status: 'synced',
        metrics: {
          impression_count: 5432,
          like_count: 234,
          retweet_count: 50,
          reply_count: 12,
          quote_count: 5,
          bookmark_count: 8,
          url_link_clicks: 89,
          user_profile_clicks: 0,
          engagements: 0,
        },
      }),
    );
    expect(byPlatform.linkedin).toEqual(
      expect.objectContaining({
        sync_status: 'synced',
        metrics: {
          share_statistics_impression_count: 640,
          share_statistics_unique_impressions_count: 400,
          share_statistics_share_count: 2,
          share_statistics_like_count: 31,
          share_statistics_comment_count: 4,
        },
      }),
    );
    expect(byPlatform.tiktok).toEqual(
      expect.objectContaining({
        sync_status: 'synced',
        metrics: { view_count: 345, like_count: 12, comment_count: 3, share_count: 1 },
      }),
    );
    for (const row of Object.values(byPlatform)) {
      expect(Date.parse(row.stale_after!)).toBeGreaterThan(Date.parse(row.last_updated_at!));
    }
    // overview sums every counter of the page.
    const { overview } = res.body as Page;
    expect(overview.posts).toBe(5);
    expect(overview.metrics.like_count).toBe(234 + 12);
    expect(overview.metrics.likes).toBe(40);
    expect(overview.metrics.post_clicks).toBe(13);
  });

  it('serves fresh rows from the cache without calling the networks again', async () => {
    await system.sandbox.setMetrics('x', resultOf('x').platform_post_id!, {
      impression_count: 1,
      like_count: 1,
      retweet_count: 1,
      reply_count: 1,
      quote_count: 1,
      bookmark_count: 1,
    });
    const cached = await list({ postId: resultOf('x').platform_post_id! });
    expect((cached.body as Page).items[0]!.metrics.like_count).toBe(234);
    const fresh = await list({ postId: resultOf('x').platform_post_id!, refresh: 'true' });
    expect((fresh.body as Page).items[0]!.metrics.like_count).toBe(1);
  });

  it('reports Instagram "not enough viewers" as a warning, keeping the counters it can read', async () => {
    await system.sandbox.setMetrics('instagram', resultOf('instagram').platform_post_id!, {
      reach: 2,
      likes: 3,
      comments: 1,
    });
    const res = await list({ postId: resultOf('instagram').platform_post_id!, refresh: true });
    const [row] = (res.body as Page).items;
    expect(row).toEqual(
      expect.objectContaining({
        platform: 'instagram',
        sync_status: 'partial',
        error_message: null,
        metrics: { likes: 3, comments: 1 },
      }),
    );
    expect(row!.warnings).toEqual(expect.arrayContaining([expect.stringContaining('not enough viewers')]));
  });

  it('filters by network id, account, platform and dates', async () => {
    const x = resultOf('x');
    expect((await list({ postId: x.platform_post_id! })).body.items.map((row: Row) => row.platform)).toEqual(['x']);
    expect((await list({ accountId: accounts.linkedin })).body.items.map((row: Row) => row.platform)).toEqual([
      'linkedin',
    ]);
    expect((await list({ platform: 'tiktok' })).body.items.map((row: Row) => row.platform)).toEqual(['tiktok']);
    expect((await list({ fromDate: '2999-01-01T00:00:00Z' })).body).toEqual({
      items: [],
      total: 0,
      page: 1,
      limit: 25,
      overview: { posts: 0, metrics: {} },
    });
    expect((await list({ toDate: '2999-01-01T00:00:00Z', fromDate: '2000-01-01T00:00:00+02:00' })).body.total).toBe(5);
    expect((await list({ toDate: '2000-01-01T00:00:00Z' })).body.total).toBe(0);
  });

  it('pages with page and limit, total counting the whole filtered set', async () => {
    const first = (await list({ limit: 2 })).body as Page;
    const third = (await list({ limit: 2, page: 3 })).body as Page;
    const beyond = (await list({ limit: 2, page: 4 })).body as Page;
    expect([first.total, first.items.length, first.page, first.limit]).toEqual([5, 2, 1, 2]);
    expect([third.items.length, third.page]).toEqual([1, 3]);
    expect(beyond.items).toEqual([]);
    expect(first.overview.posts).toBe(2);
    const all = ((await list({ limit: 100 })).body as Page).items.map((row) => row.platform_post_id);
    expect(
      [...first.items, ...((await list({ limit: 2, page: 2 })).body as Page).items, ...third.items].map(
        (row) => row.platform_post_id,
      ),
    ).toEqual(all);
    expect(((await list({})).body as Page).limit).toBe(25);
  });

  it('pages down to the 10,000th row of a filter and no deeper', async () => {
    const deepest = await list({ page: 100, limit: 100, platform: 'x' });
    expect(deepest.status).toBe(200);
    expect((deepest.body as Page).items).toEqual([]);
    expect((await list({ page: 10_000, limit: 1 })).status).toBe(200);
  });

  it.each([
    ['page=0', { page: 0 }, '/query/page'],
    ['page=-1', { page: -1 }, '/query/page'],
    ['page=abc', { page: 'abc' }, '/query/page'],
    ['page=10^20', { page: '100000000000000000000' }, '/query/page'],
    ['page * limit above 10,000', { page: 101, limit: 100 }, '/query/page'],
    ['page above 10,000', { page: 10_001, limit: 1 }, '/query/page'],
    ['limit=0', { limit: 0 }, '/query/limit'],
    ['limit=101', { limit: 101 }, '/query/limit'],
    ['limit=1.5', { limit: 1.5 }, '/query/limit'],
    ['a date without time zone', { fromDate: '2026-01-01' }, '/query/fromDate'],
    ['not a date', { toDate: 'yesterday' }, '/query/toDate'],
    ['an unknown platform', { platform: 'myspace' }, '/query/platform'],
    ['refresh=yes', { refresh: 'yes' }, '/query/refresh'],
    ['an unknown parameter', { sort: 'asc' }, '/query/sort'],
    ['fromDate after toDate', { fromDate: '2026-02-01T00:00:00Z', toDate: '2026-01-01T00:00:00Z' }, '/query/fromDate'],
  ])('answers 400 validation_error for %s', async (_name, query, path) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'validation_error', request_id: expect.any(String) }),
    );
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: expect.stringContaining(path) })]),
    );
  });

  it('requires a credential, and accepts an API key as well as a dashboard JWT', async () => {
    expect((await request(system.gateway).get('/v1/analytics/posts')).status).toBe(401);
    expect((await list({}, 'Bearer svc_notakeynotakeynotakeynotakeynotakey')).status).toBe(401);
    const orgId = `org_${Date.now()}`;
    const key = await system.apiKey(orgId);
    const res = await list({}, `Bearer ${key}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
  });

  it('never shows another organization its rows, not even by their ids', async () => {
    const other = `Bearer ${await system.token()}`;
    const x = resultOf('x');
    const queries: Record<string, string | boolean>[] = [
      {},
      { postId: post.id },
      { postId: x.platform_post_id! },
      { accountId: accounts.x },
      { platform: 'x', refresh: true },
    ];
    for (const query of queries) {
      const res = await list(query, other);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [], total: 0, page: 1, limit: 25, overview: { posts: 0, metrics: {} } });
    }
  });
  // Last: it revokes the Facebook account for good.
  it('a token revoked while reading: accounts marks the account, the row needs reconnecting', async () => {
    const postId = resultOf('facebook').platform_post_id!;
    await system.sandbox.fault('facebook', 'token_revoked', 1);
    const res = await list({ postId, refresh: 'true' });
    expect(res.status).toBe(200);
    expect((res.body as Page).items[0]).toEqual(
      expect.objectContaining({
        sync_status: 'requires_reconnect',
        error_message: expect.stringContaining('reconnect'),
      }),
    );
    expect(await system.sandbox.pendingFaults()).toEqual([]);
    const accountsPage = await request(system.gateway)
      .get('/v1/accounts')
      .query({ limit: 100 })
      .set('Authorization', auth);
    expect(
      (accountsPage.body.items as { id: string; health: string }[]).find((a) => a.id === accounts.facebook),
    ).toEqual(expect.objectContaining({ health: 'revoked' }));
  });
});
