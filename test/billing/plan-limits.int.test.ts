import { uniqueName } from '@svc/testing';
import { oauthRoundTrip as oauthConnect } from '../support/oauth-round-trip.ts';
import request from 'supertest';
import { testProviders } from '../../libs/providers/test/support/sandbox.ts';
import { waitForFinal } from '../publishing/publishing-support.ts';
import {
  deliver,
  startBillingSystem,
  subscribe,
  subscriptionOf,
  waitForLimits,
  type BillingSystem,
} from './billing-support.ts';

// Plan limits enforced where the action happens (publisher: posts; accounts: connected accounts),
// answered 402 plan_limit_reached at the gateway. Small limits so the tests reach them quickly.
const FREE = { connected_accounts: 2, posts_per_month: 3 };
const PRO = { connected_accounts: 4, posts_per_month: 6 };

let s: BillingSystem;
beforeAll(async () => {
  s = await startBillingSystem(['accounts', 'publisher', 'scheduler', 'billing'], {
    PLAN_FREE_CONNECTED_ACCOUNTS: String(FREE.connected_accounts),
    PLAN_FREE_POSTS_PER_MONTH: String(FREE.posts_per_month),
    PLAN_PRO_CONNECTED_ACCOUNTS: String(PRO.connected_accounts),
    PLAN_PRO_POSTS_PER_MONTH: String(PRO.posts_per_month),
    SCHEDULE_MIN_LEAD_SECONDS: '1',
    // The races fire a dozen connects at once; on a loaded machine the sandbox's profile check must not
    // time out (a 400) and hide who won the last slot.
    PROVIDER_TIMEOUT_MS: '10000',
  });
}, 90_000);
afterAll(async () => {
  await s?.close();
});

const publish = (auth: string, accountId: string, extra: Record<string, unknown> = {}) =>
  request(s.h.gateway)
    .post('/v1/publish')
    .set('Authorization', auth)
    .send({ account_ids: [accountId], text: `hello ${uniqueName('post')}`, ...extra });

/** A BYOK body for a fresh X account (the sandbox maps each new token to a new account), its id asked of the network. */
async function xAccountBody(token = `${uniqueName('tok')}-x`) {
  const profile = await testProviders(s.h.sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 }).x.profile.fetch({
    accessToken: token,
  });
  return { provider: 'x', platform_account_id: profile.platformAccountId, credentials: { access_token: token } };
}

const postAccount = (auth: string, body: object) =>
  request(s.h.gateway).post('/v1/accounts').set('Authorization', auth).send(body);
const connectX = async (auth: string, token?: string) => postAccount(auth, await xAccountBody(token));

async function connectedX(auth: string): Promise<string> {
  const res = await connectX(auth);
  if (res.status !== 201) throw new Error(`connect answered ${res.status}: ${JSON.stringify(res.body)}`);
  return (res.body as { id: string }).id;
}

function oauthRoundTrip(auth: string) {
  return oauthConnect(s.h.gateway, auth, 'linkedin');
}

async function newOrg() {
  const orgId = uniqueName('org');
  return { orgId, auth: `Bearer ${await s.h.token(orgId)}` };
}

describe('posts per month', () => {
  it("answers 402 naming the limit and the usage once the month's posts are used, on /v1/publish and /v1/posts", async () => {
    const { auth } = await newOrg();
    const account = await connectedX(auth);
    expect((await publish(auth, account, { text: '' })).status).toBe(400);
    for (let i = 0; i < FREE.posts_per_month; i += 1) expect((await publish(auth, account)).status).toBe(202);
    const refused = await publish(auth, account);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: 'plan_limit_reached',
      details: [expect.objectContaining({ limit: 'posts_per_month', used: 3, allowed: 3, plan: 'free' })],
    });
    expect(refused.body.error.message).toMatch(/3 posts a month/);
    const post = await request(s.h.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [account], text: 'one more' });
    expect(post.status).toBe(402);
    const body = await subscriptionOf(s, auth);
    expect(body.usage.posts_this_month).toMatchObject({ used: 3, limit: 3 });
    expect(new Date(body.usage.posts_this_month.period_start).getUTCDate()).toBe(1);
    const stats = await request(s.h.gateway).get('/v1/stats').set('Authorization', auth);
    expect(stats.body.posts_this_month).toBe(body.usage.posts_this_month.used);
  });

  it("gives a canceled scheduled job's unit back", async () => {
    const { auth } = await newOrg();
    const account = await connectedX(auth);
    for (let i = 0; i < FREE.posts_per_month - 1; i += 1) expect((await publish(auth, account)).status).toBe(202);
    const scheduled = await publish(auth, account, { scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe(202);
    expect((await publish(auth, account)).status).toBe(402);
    expect(
      (await request(s.h.gateway).post(`/v1/publish/${scheduled.body.job_id}/cancel`).set('Authorization', auth))
        .status,
    ).toBe(200);
    expect((await subscriptionOf(s, auth)).usage.posts_this_month.used).toBe(FREE.posts_per_month - 1);
    expect((await publish(auth, account)).status).toBe(202);
  });

  it('of requests racing for the last post, exactly one wins', async () => {
    const { auth } = await newOrg();
    const account = await connectedX(auth);
    for (let i = 0; i < FREE.posts_per_month - 1; i += 1) expect((await publish(auth, account)).status).toBe(202);
    const racing = await Promise.all(Array.from({ length: 12 }, () => publish(auth, account)));
    const statuses = racing.map((r) => r.status);
    expect(statuses.filter((status) => status === 202)).toHaveLength(1);
    expect(statuses.filter((status) => status === 402)).toHaveLength(11);
    expect((await subscriptionOf(s, auth)).usage.posts_this_month).toMatchObject({
      used: FREE.posts_per_month,
      limit: FREE.posts_per_month,
    });
    const history = await request(s.h.gateway).get('/v1/publish').set('Authorization', auth);
    expect(history.body.total).toBe(FREE.posts_per_month);
  });

  it('counts per organization', async () => {
    const a = await newOrg();
    const b = await newOrg();
    const accountA = await connectedX(a.auth);
    const accountB = await connectedX(b.auth);
    for (let i = 0; i < FREE.posts_per_month; i += 1) expect((await publish(a.auth, accountA)).status).toBe(202);
    expect((await publish(a.auth, accountA)).status).toBe(402);
    expect((await publish(b.auth, accountB)).status).toBe(202);
    expect((await subscriptionOf(s, b.auth)).usage.posts_this_month.used).toBe(1);
  });
});

describe('connected accounts', () => {
  it('answers 402 for a new BYOK account past the limit, and still reconnects an existing one', async () => {
    const { auth } = await newOrg();
    const token = `${uniqueName('tok')}-x`;
    expect((await connectX(auth, token)).status).toBe(201);
    expect((await connectX(auth)).status).toBe(201);
    const refused = await connectX(auth);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: 'plan_limit_reached',
      details: [expect.objectContaining({ limit: 'connected_accounts', used: 2, allowed: 2 })],
    });
    const again = await connectX(auth, token);
    expect(again.status).toBe(201);
    expect((await subscriptionOf(s, auth)).usage.connected_accounts).toEqual({ used: 2, limit: 2 });
    expect(
      (
        await request(s.h.gateway)
          .delete(`/v1/accounts/${again.body.id as string}`)
          .set('Authorization', auth)
      ).status,
    ).toBe(204);
    expect((await connectX(auth)).status).toBe(201);
  });

  it('answers 402 on the OAuth callback for a new account past the limit', async () => {
    const { auth } = await newOrg();
    expect((await connectX(auth)).status).toBe(201);
    expect((await connectX(auth)).status).toBe(201);
    const refused = await oauthRoundTrip(auth);
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: 'plan_limit_reached',
      details: [expect.objectContaining({ limit: 'connected_accounts', used: 2, allowed: 2 })],
    });
    expect((await request(s.h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(2);
  });

  it('of connects racing for the last slot, exactly one wins', async () => {
    const { auth } = await newOrg();
    expect((await connectX(auth)).status).toBe(201);
    // Bodies first, so only the connects themselves race.
    const bodies = await Promise.all(Array.from({ length: 12 }, () => xAccountBody()));
    const racing = await Promise.all(bodies.map((body) => postAccount(auth, body)));
    const statuses = racing.map((r) => r.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 402)).toHaveLength(11);
    expect((await request(s.h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(
      FREE.connected_accounts,
    );
  });
});

describe('upgrade and downgrade', () => {
  it('the paid plan raises both limits once billing announces it', async () => {
    const { auth } = await newOrg();
    const account = await connectedX(auth);
    for (let i = 0; i < FREE.posts_per_month; i += 1) expect((await publish(auth, account)).status).toBe(202);
    expect((await publish(auth, account)).status).toBe(402);
    await subscribe(s, auth);
    await waitForLimits(s, auth, PRO);
    expect((await publish(auth, account)).status).toBe(202);
    expect((await connectX(auth)).status).toBe(201);
    expect((await connectX(auth)).status).toBe(201);
  });

  it('after cancellation the free limits apply: nothing new past them, while what exists stays and scheduled jobs still fire', async () => {
    const { auth } = await newOrg();
    const subscriptionId = await subscribe(s, auth);
    await waitForLimits(s, auth, PRO);
    const accounts = [await connectedX(auth), await connectedX(auth), await connectedX(auth)];
    const scheduled = await publish(auth, accounts[0]!, { scheduled_at: new Date(Date.now() + 6_000).toISOString() });
    expect(scheduled.status).toBe(202);
    for (let i = 0; i < 3; i += 1) expect((await publish(auth, accounts[i]!)).status).toBe(202);

    const canceled = s.stripe.updateSubscription(subscriptionId, { status: 'canceled' });
    expect((await deliver(s, s.stripe.webhook('customer.subscription.deleted', canceled))).status).toBe(200);
    const body = await waitForLimits(s, auth, FREE);
    expect(body).toMatchObject({
      plan: 'free',
      status: 'canceled',
      usage: { connected_accounts: { used: 3, limit: 2 }, posts_this_month: { used: 4, limit: 3 } },
    });

    const post = await publish(auth, accounts[1]!);
    expect(post.status).toBe(402);
    expect((await connectX(auth)).status).toBe(402);
    expect((await request(s.h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(3);
    const fired = await waitForFinal(s.h, auth, scheduled.body.job_id as string, 60_000);
    expect(fired.status).toBe('published');
    expect((await subscriptionOf(s, auth)).usage.posts_this_month.used).toBe(4);
  }, 90_000);
});
