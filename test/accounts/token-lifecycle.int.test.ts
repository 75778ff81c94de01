import { randomBytes } from 'node:crypto';
import { oauthRoundTrip } from '../support/oauth-round-trip.ts';
import request from 'supertest';
import { connectionRevoked, credentialsGet, type Envelope } from '@svc/contracts';
import { vaultFromConfig } from '@svc/crypto';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { TEST_AMQP_URL, uniqueName } from '@svc/testing';
import { AccountsRepository } from '../../services/accounts/src/data/accounts.repository.ts';
import { OAuthAppsRepository } from '../../services/accounts/src/data/oauth-apps.repository.ts';
import { reencryptSecrets } from '../../services/accounts/src/domain/reencrypt-secrets.ts';
import type { PrismaClient } from '../../services/accounts/src/generated/prisma/client.ts';
import { testProviders } from '../../libs/providers/test/support/sandbox.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

const logLines: string[] = [];
const revoked: Envelope<{ account_id: string; health: string; reason: string }>[] = [];
let h: SystemHarness;
let listener: Broker;

beforeAll(async () => {
  h = await startSystem({
    services: ['accounts'],
    logLines,
    // X tokens last 2 h, so with a 3 h refresh horizon the background pass keeps renewing them.
    env: {
      TOKEN_REFRESH_INTERVAL_MS: '200',
      TOKEN_REFRESH_AHEAD_MS: String(3 * 3600_000),
      OAUTH_SUCCESS_REDIRECT: 'https://dashboard.test.local/connected',
    },
  });
  listener = await Broker.connect({
    url: TEST_AMQP_URL,
    namespace: h.namespace,
    service: 'test-listener',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  await listener.consume({
    queue: 'test.revoked',
    messages: [connectionRevoked],
    handlers: { 'connection.revoked.v1': async (env) => void revoked.push(env) },
  });
}, 60_000);
afterAll(async () => {
  await listener?.deleteTopology();
  await listener?.close();
  await h?.close();
});

const db = () => h.workers.accounts!.runtime.db as unknown as PrismaClient;

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The accounts service's count of token refreshes for one network and outcome (svc_token_refresh_total). */
async function refreshCount(provider: string, outcome: string): Promise<number> {
  const metric = h.workers.accounts!.runtime.metrics.registry.getSingleMetric('svc_token_refresh_total');
  const { values } = await metric!.get();
  return values.find((v) => v.labels.provider === provider && v.labels.outcome === outcome)?.value ?? 0;
}

/** OAuth connect through the gateway; with OAUTH_SUCCESS_REDIRECT the callback redirects to the dashboard. */
async function connectOAuth(auth: string, network: 'x' | 'tiktok' | 'linkedin'): Promise<string> {
  const res = await oauthRoundTrip(h.gateway, auth, network);
  expect(res.status).toBe(302);
  const landing = new URL(res.headers.location as string);
  expect(landing.origin + landing.pathname).toBe('https://dashboard.test.local/connected');
  expect(landing.searchParams.get('provider')).toBe(network);
  return landing.searchParams.get('account_id')!;
}

function credentials(orgId: string, accountId: string, forceRefresh = false) {
  return listener.rpc(
    credentialsGet,
    { account_id: accountId, ...(forceRefresh ? { force_refresh: true } : {}) },
    { orgId, requestId: 'test' },
  );
}

describe('token lifecycle', () => {
  it('redirects the OAuth callback with ?error= when a dashboard redirect is configured', async () => {
    const res = await request(h.gateway).get('/v1/oauth/x/callback').query({ code: 'c', state: 'forged' });
    expect(res.status).toBe(302);
    const landing = new URL(res.headers.location as string);
    expect(landing.searchParams.get('error')).toBe('validation_error');
    expect(landing.searchParams.get('error_description')).toMatch(/state/);
  });

  it('POST /refresh renews the token and answers the new expiry', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.token(orgId)}`;
    const id = await connectOAuth(auth, 'linkedin');
    const before = await db().account.findUniqueOrThrow({ where: { id } });
    const refreshed = await refreshCount('linkedin', 'refreshed');
    const res = await request(h.gateway).post(`/v1/accounts/${id}/refresh`).set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(await refreshCount('linkedin', 'refreshed')).toBe(refreshed + 1);
    expect(res.body).toEqual({ id, health: 'active', token_expires_at: expect.any(String) });
    const after = await db().account.findUniqueOrThrow({ where: { id } });
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(new Date(res.body.token_expires_at).getTime()).toBeGreaterThan(Date.now() + 50 * 86_400_000);
  });

  it('refreshes tokens in the background before they expire (X rotates its refresh token each time)', async () => {
    const orgId = uniqueName('org');
    const id = await connectOAuth(`Bearer ${await h.token(orgId)}`, 'x');
    const first = await db().account.findUniqueOrThrow({ where: { id } });
    const renewed = await waitFor(async () => {
      const row = await db().account.findUniqueOrThrow({ where: { id } });
      return row.refreshToken !== first.refreshToken && row.accessToken !== first.accessToken ? row : undefined;
    });
    expect(renewed.health).toBe('active');
    // The token other services get works against the network.
    const { access_token: token } = await credentials(orgId, id);
    await expect(testProviders(h.sandbox.baseUrl).x.profile.fetch({ accessToken: token })).resolves.toMatchObject({
      platformAccountId: renewed.platformAccountId,
    });
  });

  it('gives services a usable token by RPC, refreshing it on demand', async () => {
    const orgId = uniqueName('org');
    const id = await connectOAuth(`Bearer ${await h.token(orgId)}`, 'tiktok');
    const first = await credentials(orgId, id);
    expect(first).toMatchObject({ account_id: id, provider: 'tiktok' });
    const forced = await credentials(orgId, id, true);
    expect(forced.access_token).not.toBe(first.access_token);
    await expect(
      listener.rpc(credentialsGet, { account_id: id }, { orgId: uniqueName('org'), requestId: 't' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a refresh the network refuses marks the account and emits connection.revoked; its credentials are refused', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.token(orgId)}`;
    // LinkedIn: the background pass (3 h horizon) refreshes 2-hour TikTok and X tokens all the time and
    // would spend this network-wide fault first.
    const id = await connectOAuth(auth, 'linkedin');
    await h.sandbox.fault('linkedin', 'token_revoked', 1);
    const lost = await refreshCount('linkedin', 'connection_lost');
    const res = await request(h.gateway)
      .post(`/v1/accounts/${id}/refresh`)
      .set('Authorization', auth)
      .set('X-Request-Id', `revoke-${id}`);
    expect(res.status).toBe(409);
    // Counted for the refresh-failure alert (docs/operations.md, "TokenRefreshFailures").
    expect(await refreshCount('linkedin', 'connection_lost')).toBe(lost + 1);
    expect(res.body.error.code).toBe('conflict');
    const event = await waitFor(() => revoked.find((e) => e.payload.account_id === id));
    expect(event.org_id).toBe(orgId);
    // The request id travels gateway -> RPC headers -> accounts -> the event it caused.
    expect(event.request_id).toBe(`revoke-${id}`);
    expect(['revoked', 'requires_reconnect']).toContain(event.payload.health);
    const list = await request(h.gateway).get('/v1/accounts').set('Authorization', auth);
    expect(list.body.items[0].health).toBe(event.payload.health);
    await expect(credentials(orgId, id)).rejects.toMatchObject({ code: 'conflict' });
    // Reconnecting through OAuth brings the same account back to active.
    expect(await connectOAuth(auth, 'linkedin')).toBe(id);
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.items[0].health).toBe(
      'active',
    );
  });

  it('holds no transaction open while the network is slow, and runs one refresh at a time per account', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.token(orgId)}`;
    // LinkedIn tokens last 60 days: the background pass (3 h horizon here) leaves this account alone.
    const id = await connectOAuth(auth, 'linkedin');
    await h.sandbox.fault('linkedin', 'timeout', 1);
    const slow = request(h.gateway)
      .post(`/v1/accounts/${id}/refresh`)
      .set('Authorization', auth)
      .then((res) => res);
    const lease = await waitFor(async () => {
      const row = await db().account.findUniqueOrThrow({ where: { id } });
      return row.refreshLeaseUntil !== null && row.refreshLeaseUntil.getTime() > Date.now() ? row : undefined;
    });
    expect(lease.refreshLeaseOwner).not.toBeNull();
    // A row lock held across the network call showed up here as an idle-in-transaction session. The
    // call lasts PROVIDER_TIMEOUT_MS (2 s), so such a transaction is idle in both samples, 300 ms
    // apart; one sample alone also caught the service's own short transactions on a loaded machine.
    const idleInTransaction = () =>
      db().$queryRawUnsafe<{ pid: number; xact_start: Date }[]>(
        "SELECT pid, xact_start FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
      );
    const firstSample = await idleInTransaction();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const secondSample = await idleInTransaction();
    const heldAcross = firstSample.filter((one) =>
      secondSample.some((other) => other.pid === one.pid && other.xact_start.getTime() === one.xact_start.getTime()),
    );
    expect(heldAcross).toHaveLength(0);
    // A second refresh waits for the first instead of spending the refresh token again.
    const second = request(h.gateway)
      .post(`/v1/accounts/${id}/refresh`)
      .set('Authorization', auth)
      .then((res) => res);
    expect((await slow).status).toBe(503);
    expect((await second).status).toBe(200);
    const after = await db().account.findUniqueOrThrow({ where: { id } });
    expect({ until: after.refreshLeaseUntil, owner: after.refreshLeaseOwner, health: after.health }).toEqual({
      until: null,
      owner: null,
      health: 'active',
    });
  });

  it('flags tokens that will lapse with no refresh as expiring, and lapsed ones as requires_reconnect', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.token(orgId)}`;
    const connect = async (expiresAt: Date) => {
      const token = `byok-${uniqueName('x')}`;
      const profile = await testProviders(h.sandbox.baseUrl).x.profile.fetch({ accessToken: token });
      return (
        await request(h.gateway)
          .post('/v1/accounts')
          .set('Authorization', auth)
          .send({
            provider: 'x',
            platform_account_id: profile.platformAccountId,
            credentials: { access_token: token, expires_at: expiresAt.toISOString() },
          })
      ).body.id as string;
    };
    const soon = await connect(new Date(Date.now() + 86_400_000));
    const lapsed = await connect(new Date(Date.now() - 1000));
    await waitFor(async () =>
      (await db().account.findUniqueOrThrow({ where: { id: soon } })).health === 'expiring' ? true : undefined,
    );
    await waitFor(async () =>
      (await db().account.findUniqueOrThrow({ where: { id: lapsed } })).health === 'requires_reconnect'
        ? true
        : undefined,
    );
    await waitFor(() => revoked.find((e) => e.payload.account_id === lapsed));
    expect((await credentials(orgId, soon)).account_id).toBe(soon);
  });

  it('re-encrypts every secret under a new key; the old key can then go', async () => {
    const auth = `Bearer ${await h.token()}`;
    await connectOAuth(auth, 'linkedin');
    await request(h.gateway)
      .post('/v1/oauth-apps')
      .set('Authorization', auth)
      .send({ provider: 'x', name: 'n', client_id: 'c', client_secret: 'app-secret-value' });
    const k2 = randomBytes(32).toString('base64');
    const rotated = vaultFromConfig(`${h.env.VAULT_KEYS},k2:${k2}`);
    const k2Only = vaultFromConfig(`k2:${k2}`);
    const deps = { accounts: new AccountsRepository(db()), apps: new OAuthAppsRepository(db()), vault: rotated };
    const moved = await reencryptSecrets(deps);
    expect(moved.accounts).toBeGreaterThan(0);
    expect(moved.apps).toBeGreaterThan(0);
    // The running service still writes under k1 (it was started with k1 active), so the proof uses the
    // app secrets, which nothing else rewrites: they now decrypt with the new key alone.
    for (const app of await db().oAuthApp.findMany()) {
      expect(app.clientSecret.startsWith('v1.k2.')).toBe(true);
      expect(k2Only.decrypt(app.clientSecret, `org:${app.orgId}:oauth_app:${app.id}:client_secret`)).toBe(
        'app-secret-value',
      );
    }
    const again = await reencryptSecrets(deps);
    expect(again.apps).toBe(0);
  });

  it('binds every token to its organization: a row moved to another organization no longer decrypts', async () => {
    const orgId = uniqueName('org');
    const id = await connectOAuth(`Bearer ${await h.token(orgId)}`, 'linkedin');
    expect((await credentials(orgId, id)).account_id).toBe(id);
    const intruder = uniqueName('org');
    await db().account.update({ where: { id }, data: { orgId: intruder } });
    await expect(credentials(intruder, id)).rejects.toThrow();
    const row = await db().account.findUniqueOrThrow({ where: { id } });
    const vault = vaultFromConfig(h.env.VAULT_KEYS!);
    expect(() => vault.decrypt(row.accessToken, `org:${intruder}:account:${id}:access_token`)).toThrow();
    expect(vault.decrypt(row.accessToken, `org:${orgId}:account:${id}:access_token`)).toEqual(expect.any(String));
    const deps = { accounts: new AccountsRepository(db()), apps: new OAuthAppsRepository(db()), vault };
    expect((await reencryptSecrets(deps)).unreadable).toContain(id);
  });

  it('seals a token stored under the former binding (no organization) anew, after which it is bound', async () => {
    const orgId = uniqueName('org');
    const id = await connectOAuth(`Bearer ${await h.token(orgId)}`, 'linkedin');
    const vault = vaultFromConfig(h.env.VAULT_KEYS!);
    const row = await db().account.findUniqueOrThrow({ where: { id } });
    const token = vault.decrypt(row.accessToken, `org:${orgId}:account:${id}:access_token`);
    // As a version that bound tokens to the account alone stored it.
    await db().account.update({
      where: { id },
      data: { accessToken: vault.encrypt(token, `account:${id}:access_token`), refreshToken: null },
    });
    await expect(credentials(orgId, id)).rejects.toThrow();
    const deps = { accounts: new AccountsRepository(db()), apps: new OAuthAppsRepository(db()), vault };
    const resealed = await reencryptSecrets(deps);
    expect(resealed.accounts).toBeGreaterThan(0);
    expect(resealed.unreadable).not.toContain(id);
    expect(await credentials(orgId, id)).toMatchObject({ account_id: id, access_token: token });
  });

  it('never writes a token or secret to a log line', async () => {
    const orgId = uniqueName('org');
    const id = await connectOAuth(`Bearer ${await h.token(orgId)}`, 'x');
    const { access_token: token } = await credentials(orgId, id);
    const all = logLines.join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    expect(all).not.toContain(token);
    expect(all).not.toContain('app-secret-value');
    expect(all).not.toContain(h.env.OAUTH_STATE_SECRET!);
  });
});
