import request from 'supertest';
import { billingWebhookReceive, oauthComplete } from '@svc/contracts';
import { uniqueName } from '@svc/testing';
import { Type } from '@sinclair/typebox';
import { loadGatewayConfig } from '../src/config.ts';
import { defineRoute } from '../src/http/route.ts';
import type { RpcCaller } from '../src/http/rpc-caller.ts';
import { defineOperation } from '../src/openapi/operation.ts';
import { billingRoutes } from '../src/routes/billing.routes.ts';
import { oauthRoutes } from '../src/routes/oauth.routes.ts';
import { JWT_SECRET, PEPPER, startGatewayHarness, type GatewayHarness } from './gateway-harness.ts';

/** Like GET /media/{file}: anonymous, and exempt from the per-address limit. */
const publicBytes = defineOperation({
  operationId: 'testPublicBytes',
  method: 'get',
  path: '/v1/test/public-bytes',
  summary: 'Test only.',
  tag: 'Test',
  auth: 'none',
  anonymousUnlimited: true,
  responses: { 200: Type.Object({ ok: Type.Boolean() }) },
  errors: [],
});

const limits = { perKey: 3, perOrg: 8, windowSeconds: 60, keyPrefix: uniqueName('rl') };
let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ rateLimit: limits });
});
afterAll(async () => {
  await h.close();
});

describe('rate limits', () => {
  it('counts per API key with RateLimit headers, then answers 429 with Retry-After', async () => {
    const token = await h.token(uniqueName('org'), 'admin');
    const { body } = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'k' });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${body.key}`);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      remaining.push(res.headers['ratelimit-remaining'] as string);
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${body.key}`);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('counts per organization across keys and users', async () => {
    const orgId = uniqueName('org');
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      const token = await h.token(orgId, `user_${i}`);
      statuses.push((await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${token}`)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
  });

  it('shares counts between gateway replicas through Redis', async () => {
    const replica = await startGatewayHarness({ rateLimit: limits });
    try {
      const token = await h.token(uniqueName('org'), 'u');
      const apps = [h.app, replica.app, h.app, replica.app];
      const seen = [];
      for (const app of apps) {
        const res = await request(app).get('/v1/test/whoami').set('Authorization', `Bearer ${token}`);
        seen.push(res.status === 429 ? 'limited' : res.headers['ratelimit-remaining']);
      }
      expect(seen).toEqual(['2', '1', '0', 'limited']);
    } finally {
      await replica.close();
    }
  });

  it('counts requests that arrive together exactly, though their counts share writes to Redis', async () => {
    // The client pipelines the commands of one turn (redis-client.ts): 12 requests at once, by one
    // organization's users, against a limit of 8.
    const orgId = uniqueName('org');
    const tokens = await Promise.all(Array.from({ length: 12 }, (_, i) => h.token(orgId, `user_${i}`)));
    const responses = await Promise.all(
      tokens.map((token) => request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${token}`)),
    );
    const statuses = responses.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(8).fill(200), ...Array(4).fill(429)]);
  });

  describe('per client address, for requests without a valid credential', () => {
    let anon: GatewayHarness;
    beforeAll(async () => {
      anon = await startGatewayHarness({
        rateLimit: { ...limits, perAddress: 3, keyPrefix: uniqueName('rl') },
        trustProxyHops: 1,
        extraRoutes: () => [defineRoute(publicBytes, () => Promise.resolve({ status: 200, body: { ok: true } }))],
      });
    });
    afterAll(async () => {
      await anon.close();
    });

    it('limits anonymous endpoints per address (X-Forwarded-For behind the trusted hop)', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1)
        statuses.push((await request(anon.app).get('/health').set('X-Forwarded-For', '203.0.113.7')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await request(anon.app).get('/health').set('X-Forwarded-For', '203.0.113.7');
      expect(limited.body.error.code).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await request(anon.app).get('/health').set('X-Forwarded-For', '203.0.113.8')).status).toBe(200);
    });

    it('counts failed authentication per address, so keys cannot be guessed at full speed', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push(
          (
            await request(anon.app)
              .get('/v1/test/whoami')
              .set('X-Forwarded-For', '198.51.100.9')
              .set('Authorization', `Bearer svc_guess${i}`)
          ).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    });

    it("leaves public media alone: the networks' crawlers fetch in bursts from few addresses", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1)
        statuses.push(
          (await request(anon.app).get('/v1/test/public-bytes').set('X-Forwarded-For', '198.51.100.77')).status,
        );
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    });

    it('does not count authenticated requests against the address', async () => {
      const token = await anon.token(uniqueName('org'), 'u');
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push(
          (
            await request(anon.app)
              .get('/v1/test/whoami')
              .set('X-Forwarded-For', '192.0.2.44')
              .set('Authorization', `Bearer ${token}`)
          ).status,
        );
      expect(statuses).toEqual([200, 200, 200]);
      expect((await request(anon.app).get('/health').set('X-Forwarded-For', '192.0.2.44')).status).toBe(200);
    });
  });

  describe('the client address behind TRUST_PROXY_HOPS', () => {
    const hopsFromEnv = (value: string) =>
      loadGatewayConfig({ JWT_SECRET, API_KEY_PEPPER: PEPPER, TRUST_PROXY_HOPS: value }).TRUST_PROXY_HOPS;

    /** Exhausts one client's anonymous bucket, then answers the status another client gets. */
    async function afterOneClientExhaustsItsBucket(trustProxyHops: number): Promise<number> {
      const gateway = await startGatewayHarness({
        rateLimit: { ...limits, perAddress: 3, keyPrefix: uniqueName('rl') },
        trustProxyHops,
      });
      try {
        const first: number[] = [];
        for (let i = 0; i < 4; i += 1)
          first.push((await request(gateway.app).get('/health').set('X-Forwarded-For', '203.0.113.50')).status);
        expect(first).toEqual([200, 200, 200, 429]);
        return (await request(gateway.app).get('/health').set('X-Forwarded-For', '203.0.113.51')).status;
      } finally {
        await gateway.close();
      }
    }

    it('with TRUST_PROXY_HOPS=1 (an ingress in front), clients of different X-Forwarded-For count apart', async () => {
      expect(await afterOneClientExhaustsItsBucket(hopsFromEnv('1'))).toBe(200);
    });

    it('with TRUST_PROXY_HOPS=0, X-Forwarded-For is ignored: every client behind the one proxy shares its bucket', async () => {
      expect(await afterOneClientExhaustsItsBucket(hopsFromEnv('0'))).toBe(429);
    });
  });

  describe('the Stripe webhook and the OAuth callback, in buckets of their own', () => {
    let own: GatewayHarness;
    // What billing and accounts answer: the point here is the gateway's limit, not their work.
    const rpc = ((def: { type: string }) => {
      if (def.type === billingWebhookReceive.type)
        return Promise.resolve({ event_id: 'evt_1', type: 'customer.created', duplicate: false });
      if (def.type === oauthComplete.type)
        return Promise.resolve({ account_id: 'acc_1', provider: 'x', reconnected: false });
      return Promise.reject(new Error(`unexpected RPC ${def.type}`));
    }) as RpcCaller;
    beforeAll(async () => {
      own = await startGatewayHarness({
        rateLimit: { ...limits, perAddress: 3, perStripeWebhook: 2, perOAuthCallback: 4, keyPrefix: uniqueName('rl') },
        trustProxyHops: 1,
        extraRoutes: () => [
          ...billingRoutes(rpc),
          ...oauthRoutes(rpc, {
            successRedirect: undefined,
            secureCookies: false,
            handoffs: { create: () => Promise.resolve(undefined) },
          }),
        ],
      });
    });
    afterAll(async () => {
      await own.close();
    });

    const webhook = (address: string) =>
      request(own.app)
        .post('/v1/billing/webhook')
        .set('X-Forwarded-For', address)
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', 't=1764547200,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd')
        .send('{"id":"evt_1"}');
    const callback = (address: string) =>
      request(own.app).get('/v1/oauth/x/callback?code=c&state=s').set('X-Forwarded-For', address);

    it('answers them normally from an address whose shared anonymous bucket is exhausted', async () => {
      const address = '198.51.100.200';
      const junk: number[] = [];
      for (let i = 0; i < 4; i += 1)
        junk.push((await request(own.app).get('/health').set('X-Forwarded-For', address)).status);
      expect(junk).toEqual([200, 200, 200, 429]);
      const delivered = await webhook(address);
      expect([delivered.status, delivered.body]).toEqual([
        200,
        { received: true, event_id: 'evt_1', duplicate: false },
      ]);
      const connected = await callback(address);
      expect([connected.status, connected.body]).toEqual([
        200,
        { account_id: 'acc_1', provider: 'x', reconnected: false },
      ]);
    });

    it('gives each its own limit, which neither the shared bucket nor the other one counts', async () => {
      const address = '198.51.100.201';
      const webhooks: number[] = [];
      for (let i = 0; i < 3; i += 1) webhooks.push((await webhook(address)).status);
      expect(webhooks).toEqual([200, 200, 429]);
      const limited = await webhook(address);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers['ratelimit-limit']).toBe('2');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const callbacks: number[] = [];
      for (let i = 0; i < 5; i += 1) callbacks.push((await callback(address)).status);
      expect(callbacks).toEqual([200, 200, 200, 200, 429]);
      expect((await request(own.app).get('/health').set('X-Forwarded-For', address)).status).toBe(200);
    });
  });
});
