import request from 'supertest';
import { signToken } from '@svc/crypto';
import { uniqueName } from '@svc/testing';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

const NETWORKS = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const;
type Network = (typeof NETWORKS)[number];

let h: SystemHarness;
beforeAll(async () => {
  h = await startSystem({ services: ['accounts'], env: { OAUTH_FLOW_PRUNE_INTERVAL_MS: '200' } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** The flow cookie `start` set on the dashboard user's browser, by authorize URL. */
const browserCookies = new Map<string, string>();

async function start(auth: string, network: Network, query: Record<string, string> = {}): Promise<string> {
  const res = await request(h.gateway).get(`/v1/oauth/${network}/start`).query(query).set('Authorization', auth);
  expect(res.status).toBe(200);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  expect(setCookie).toHaveLength(1);
  browserCookies.set(res.body.authorize_url as string, setCookie[0]!.split(';')[0]!);
  return res.body.authorize_url as string;
}

/** Lets the sandbox's consent page redirect, and returns the callback path+query it sends the browser to. */
async function consent(authorizeUrl: string): Promise<{ path: string; params: URLSearchParams; cookie: string }> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(location.origin).toBe('http://api.test.local');
  return { path: location.pathname, params: location.searchParams, cookie: browserCookies.get(authorizeUrl) ?? '' };
}

async function roundTrip(auth: string, network: Network, query: Record<string, string> = {}) {
  const { path, params, cookie } = await consent(await start(auth, network, query));
  return request(h.gateway).get(path).set('Cookie', cookie).query(Object.fromEntries(params));
}

describe('OAuth connect through the gateway', () => {
  it.each(NETWORKS)(
    '%s: start, consent, callback connects the account; a second round trip reconnects it',
    async (network) => {
      const auth = `Bearer ${await h.token()}`;
      const first = await roundTrip(auth, network);
      expect(first.status).toBe(200);
      // Facebook connects each Page picked in its Login dialog (one here) and names them all in account_ids.
      const pages = network === 'facebook' ? { account_ids: [first.body.account_id] } : {};
      expect(first.body).toEqual({ account_id: expect.any(String), provider: network, reconnected: false, ...pages });
      const list = await request(h.gateway).get('/v1/accounts').set('Authorization', auth);
      expect(list.body.items).toEqual([
        expect.objectContaining({
          id: first.body.account_id,
          provider: network,
          health: 'active',
          connection_type: 'oauth',
        }),
      ]);

      const second = await roundTrip(auth, network);
      expect(second.body).toEqual({
        account_id: first.body.account_id,
        provider: network,
        reconnected: true,
        ...pages,
      });
      expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(1);
    },
  );

  it('Facebook: each picked Page is stored with its own non-expiring Page token, not the 60-day user token', async () => {
    const auth = `Bearer ${await h.token()}`;
    const res = await roundTrip(auth, 'facebook');
    expect(res.status).toBe(200);
    const [account] = (await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.items;
    expect(account).toMatchObject({
      id: res.body.account_id,
      provider: 'facebook',
      token_expires_at: null,
      health: 'active',
    });
  });

  it("Instagram: stored with the linked Page's non-expiring token, so no fb_exchange_token refresh is ever needed", async () => {
    const auth = `Bearer ${await h.token()}`;
    const res = await roundTrip(auth, 'instagram');
    expect(res.status).toBe(200);
    const [account] = (await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.items;
    expect(account).toMatchObject({
      id: res.body.account_id,
      provider: 'instagram',
      token_expires_at: null,
      health: 'active',
    });
  });

  it('TikTok: asks user.info.profile (username) and sends the challenge as TikTok documents it (hex SHA-256)', async () => {
    const url = new URL(await start(`Bearer ${await h.token()}`, 'tiktok'));
    expect(url.searchParams.get('scope')!.split(',')).toEqual(
      expect.arrayContaining(['user.info.basic', 'user.info.profile', 'video.publish']),
    );
    expect(url.searchParams.get('code_challenge')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('uses PKCE where the network requires it, and binds state to the flow', async () => {
    const url = new URL(await start(`Bearer ${await h.token()}`, 'x'));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('redirect_uri')).toBe('http://api.test.local/v1/oauth/x/callback');
    expect(url.searchParams.get('client_id')).toBe('x-client');
    expect(url.searchParams.get('state')!.length).toBeGreaterThan(20);
  });

  it('refuses API keys on start (dashboard JWT only)', async () => {
    const key = await h.apiKey(uniqueName('org'));
    const res = await request(h.gateway).get('/v1/oauth/x/start').set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(403);
  });

  it('rejects a tampered state, a replayed state, another network and an expired state, connecting nothing', async () => {
    const auth = `Bearer ${await h.token()}`;
    const { path, params, cookie } = await consent(await start(auth, 'tiktok'));
    const state = params.get('state')!;
    const tampered = `${state.slice(0, -2)}xx`;
    const bad = await request(h.gateway)
      .get(path)
      .set('Cookie', cookie)
      .query({ code: params.get('code'), state: tampered });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/invalid or has been tampered/);

    const wrongNetwork = await request(h.gateway)
      .get('/v1/oauth/x/callback')
      .query({ code: params.get('code'), state });
    expect(wrongNetwork.status).toBe(400);
    expect(wrongNetwork.body.error.message).toMatch(/issued for tiktok/);

    expect((await request(h.gateway).get(path).set('Cookie', cookie).query(Object.fromEntries(params))).status).toBe(
      200,
    );
    const replay = await request(h.gateway).get(path).set('Cookie', cookie).query(Object.fromEntries(params));
    expect(replay.status).toBe(400);
    expect(replay.body.error.message).toMatch(/already been used/);

    const expired = signToken(
      { f: '00000000-0000-4000-8000-000000000000', p: 'tiktok', e: Math.floor(Date.now() / 1000) - 5 },
      h.env.OAUTH_STATE_SECRET!,
    );
    const late = await request(h.gateway).get(path).set('Cookie', cookie).query({ code: 'c', state: expired });
    expect(late.status).toBe(400);
    expect(late.body.error.message).toMatch(/expired/);
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(1);
  });

  it('reports a user who denied consent, and a missing state, without creating anything', async () => {
    const auth = `Bearer ${await h.token()}`;
    const { params, cookie } = await consent(await start(auth, 'linkedin'));
    const denied = await request(h.gateway)
      .get('/v1/oauth/linkedin/callback')
      .set('Cookie', cookie)
      .query({ state: params.get('state'), error: 'access_denied', error_description: 'The user cancelled' });
    expect(denied.status).toBe(400);
    expect(denied.body.error.message).toBe('The user did not grant access on the network.');
    expect((await request(h.gateway).get('/v1/oauth/linkedin/callback').query({ code: 'x' })).status).toBe(400);
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(0);
  });

  it('reports a network that refuses the code', async () => {
    const auth = `Bearer ${await h.token()}`;
    const { path, params, cookie } = await consent(await start(auth, 'x'));
    const res = await request(h.gateway)
      .get(path)
      .set('Cookie', cookie)
      .query({ state: params.get('state'), code: 'not-a-code-the-network-issued' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^X rejected the authorization code/);
  });
});

describe('OAuth links cannot be hijacked or abused', () => {
  it('sets an HttpOnly, SameSite=Lax flow cookie scoped to the callback', async () => {
    const res = await request(h.gateway)
      .get('/v1/oauth/x/start')
      .set('Authorization', `Bearer ${await h.token()}`);
    const [cookie] = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(cookie).toMatch(/^svc_oauth_[0-9a-f]{32}=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; Max-Age=600/);
    expect(cookie).toMatch(/; Path=\/v1\/oauth\/x\/callback/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
  });

  it('refuses a consented link forwarded to another browser, connecting nothing, and burns the flow', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.token(orgId)}`;
    const { path, params, cookie } = await consent(await start(auth, 'x'));
    // The victim's browser has no cookie (or another flow's): it must not connect into orgId.
    const victim = await request(h.gateway).get(path).query(Object.fromEntries(params));
    expect(victim.status).toBe(403);
    expect(victim.body.error.code).toBe('forbidden');
    const otherBrowser = await request(h.gateway)
      .get(path)
      .set('Cookie', `${cookie.split('=')[0]}=${'A'.repeat(43)}`)
      .query(Object.fromEntries(params));
    expect(otherBrowser.status).toBe(400);
    // The flow is spent: even the right browser must start again.
    expect((await request(h.gateway).get(path).set('Cookie', cookie).query(Object.fromEntries(params))).status).toBe(
      400,
    );
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(0);
  });

  it('never shows text from the callback link: fixed messages, the network code only when it is one', async () => {
    const auth = `Bearer ${await h.token()}`;
    for (const [error, code] of [
      ['server_error', 'server_error'],
      ['<script>alert(1)</script>', 'unknown_error'],
    ] as const) {
      const { params, cookie } = await consent(await start(auth, 'linkedin'));
      const res = await request(h.gateway)
        .get('/v1/oauth/linkedin/callback')
        .set('Cookie', cookie)
        .query({
          state: params.get('state'),
          error,
          error_description: 'Call +1-555-0100 to verify your account at evil.example',
        });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('The network refused the authorization; start the connection again.');
      // The request id is a random UUID that can itself contain "555": leave it out of the search.
      const { request_id: _requestId, ...shown } = res.body.error;
      expect(JSON.stringify(shown)).not.toMatch(/evil|script|555/);
      expect(res.body.error.details[0].message).toBe(code);
    }
  });
});

describe('OAuth flow housekeeping', () => {
  it('prunes flows an hour after they expire, keeping live ones', async () => {
    const auth = `Bearer ${await h.token()}`;
    const stale = new URL(await start(auth, 'x')).searchParams.get('state')!;
    const live = new URL(await start(auth, 'x')).searchParams.get('state')!;
    const flowId = (state: string) => JSON.parse(Buffer.from(state.split('.')[0]!, 'base64url').toString()).f as string;
    const db = h.workers.accounts!.runtime.db as unknown as {
      $executeRawUnsafe(sql: string, ...v: unknown[]): Promise<number>;
      $queryRawUnsafe<T>(sql: string, ...v: unknown[]): Promise<T>;
    };
    await db.$executeRawUnsafe(
      "UPDATE oauth_flows SET expires_at = now() - interval '2 hours' WHERE id = $1::uuid",
      flowId(stale),
    );
    const remaining = async () =>
      (
        await db.$queryRawUnsafe<{ id: string }[]>('SELECT id::text FROM oauth_flows WHERE id = ANY($1::uuid[])', [
          flowId(stale),
          flowId(live),
        ])
      ).map((row) => row.id);
    const deadline = Date.now() + 10_000;
    while ((await remaining()).length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await remaining()).toEqual([flowId(live)]);
  });
});

describe('BYOK OAuth apps', () => {
  it('registers an app (secret encrypted, never returned), lists it, and starts OAuth with it', async () => {
    const auth = `Bearer ${await h.token()}`;
    const created = await request(h.gateway)
      .post('/v1/oauth-apps')
      .set('Authorization', auth)
      .send({ provider: 'x', name: 'My X app', client_id: 'my-client', client_secret: 'my-very-secret' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      provider: 'x',
      name: 'My X app',
      client_id: 'my-client',
      redirect_uri: 'http://api.test.local/v1/oauth/x/callback',
      scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
    });
    expect(JSON.stringify(created.body)).not.toContain('my-very-secret');
    const db = h.workers.accounts!.runtime.db as unknown as {
      $queryRawUnsafe<T>(sql: string, ...v: unknown[]): Promise<T>;
    };
    const [row] = await db.$queryRawUnsafe<{ client_secret: string }[]>(
      'SELECT client_secret FROM oauth_apps WHERE id = $1::uuid',
      created.body.id,
    );
    expect(row!.client_secret).not.toContain('my-very-secret');

    const listed = await request(h.gateway).get('/v1/oauth-apps?provider=x').set('Authorization', auth);
    expect(listed.body).toEqual([created.body]);
    expect((await request(h.gateway).get('/v1/oauth-apps?provider=tiktok').set('Authorization', auth)).body).toEqual(
      [],
    );

    const url = new URL(await start(auth, 'x', { oauth_app_id: created.body.id }));
    expect(url.searchParams.get('client_id')).toBe('my-client');
    const { path, params, cookie } = await consent(url.toString());
    const done = await request(h.gateway).get(path).set('Cookie', cookie).query(Object.fromEntries(params));
    expect(done.status).toBe(200);
  });

  it('validates, keeps apps per organization, and refuses API keys', async () => {
    const auth = `Bearer ${await h.token()}`;
    expect(
      (
        await request(h.gateway)
          .post('/v1/oauth-apps')
          .set('Authorization', auth)
          .send({ provider: 'x', name: 'x'.repeat(121), client_id: 'c', client_secret: 's' })
      ).status,
    ).toBe(400);
    expect(
      (
        await request(h.gateway)
          .post('/v1/oauth-apps')
          .set('Authorization', auth)
          .send({ provider: 'x', name: '', client_id: 'c', client_secret: 's' })
      ).status,
    ).toBe(400);
    expect(
      (
        await request(h.gateway)
          .post('/v1/oauth-apps')
          .set('Authorization', auth)
          .send({ provider: 'x', name: 'n', client_id: 'c' })
      ).status,
    ).toBe(400);
    const created = await request(h.gateway)
      .post('/v1/oauth-apps')
      .set('Authorization', auth)
      .send({ provider: 'linkedin', name: 'n', client_id: 'c', client_secret: 's' });
    const other = `Bearer ${await h.token()}`;
    expect((await request(h.gateway).get('/v1/oauth-apps').set('Authorization', other)).body).toEqual([]);
    expect(
      (
        await request(h.gateway)
          .get('/v1/oauth/linkedin/start')
          .query({ oauth_app_id: created.body.id })
          .set('Authorization', other)
      ).status,
    ).toBe(404);
    expect(
      (
        await request(h.gateway)
          .get('/v1/oauth-apps')
          .set('Authorization', `Bearer ${await h.apiKey(uniqueName('org'))}`)
      ).status,
    ).toBe(403);
  });
});

describe('LinkedIn scopes per author type', () => {
  const createApp = async (auth: string, body: Record<string, unknown>) => {
    const res = await request(h.gateway)
      .post('/v1/oauth-apps')
      .set('Authorization', auth)
      .send({ provider: 'linkedin', name: 'li', client_secret: 's', ...body });
    expect(res.status).toBe(201);
    return res.body as { id: string; scopes: string[] };
  };

  it('a member connect asks only for openid profile w_member_social (no vetted analytics scope), so an app without the Community Management API connects', async () => {
    const url = new URL(await start(`Bearer ${await h.token()}`, 'linkedin'));
    expect(url.searchParams.get('scope')).toBe('openid profile w_member_social');
  });

  it('organization: asks for the organization scopes and connects every page the member administers, each as its own account', async () => {
    const auth = `Bearer ${await h.token()}`;
    const app = await createApp(auth, { client_id: `cma-${uniqueName('li')}` });
    const url = await start(auth, 'linkedin', { oauth_app_id: app.id, author_type: 'organization' });
    expect(new URL(url).searchParams.get('scope')).toBe(
      'openid profile w_organization_social r_organization_social rw_organization_admin',
    );
    const { path, params, cookie } = await consent(url);
    const done = await request(h.gateway).get(path).set('Cookie', cookie).query(Object.fromEntries(params));
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      account_id: expect.any(String),
      provider: 'linkedin',
      reconnected: false,
      account_ids: [done.body.account_id, expect.any(String)],
    });
    const list = await request(h.gateway).get('/v1/accounts').set('Authorization', auth);
    expect(list.body.items.map((item: { platform_account_id: string }) => item.platform_account_id).sort()).toEqual([
      expect.stringMatching(/^urn:li:organization:\d+$/),
      expect.stringMatching(/^urn:li:organization:\d+$/),
    ]);
  });

  it('an app without the vetted product asking for organization scopes is refused by LinkedIn, and nothing connects', async () => {
    const auth = `Bearer ${await h.token()}`;
    const { path, params, cookie } = await consent(await start(auth, 'linkedin', { author_type: 'organization' }));
    expect(params.get('error')).toBe('unauthorized_scope_error');
    const res = await request(h.gateway).get(path).set('Cookie', cookie).query(Object.fromEntries(params));
    expect(res.status).toBe(400);
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(0);
  });

  it('an OAuth app may name its own scopes (e.g. r_member_postAnalytics when it has the product); author_type is LinkedIn-only', async () => {
    const auth = `Bearer ${await h.token()}`;
    const app = await createApp(auth, {
      client_id: `cma-${uniqueName('li')}`,
      scopes: ['openid', 'profile', 'w_member_social', 'r_member_postAnalytics'],
    });
    expect(app.scopes).toEqual(['openid', 'profile', 'w_member_social', 'r_member_postAnalytics']);
    const url = new URL(await start(auth, 'linkedin', { oauth_app_id: app.id }));
    expect(url.searchParams.get('scope')).toBe('openid profile w_member_social r_member_postAnalytics');
    const wrong = await request(h.gateway)
      .get('/v1/oauth/x/start')
      .query({ author_type: 'organization' })
      .set('Authorization', auth);
    expect(wrong.status).toBe(400);
  });
});
