import request from 'supertest';
import { uniqueName } from '@svc/testing';
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../src/http/route.ts';
import { defineOperation } from '../src/openapi/operation.ts';
import { startGatewayHarness, type GatewayHarness } from './gateway-harness.ts';

/** Like GET /media/{file}: anonymous, and exempt from the per-address limit. */
const publicBytes = defineOperation({
  operationId: 'testPublicBytes', method: 'get', path: '/v1/test/public-bytes', summary: 'Test only.', tag: 'Test', auth: 'none', anonymousUnlimited: true,
  responses: { 200: Type.Object({ ok: Type.Boolean() }) }, errors: [],
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
    const { body } = await request(h.app).post('/v1/api-keys').set('Authorization', `Bearer ${token}`).send({ name: 'k' });
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
    const responses = await Promise.all(tokens.map((token) => request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${token}`)));
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
      for (let i = 0; i < 4; i += 1) statuses.push((await request(anon.app).get('/health').set('X-Forwarded-For', '203.0.113.7')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await request(anon.app).get('/health').set('X-Forwarded-For', '203.0.113.7');
      expect(limited.body.error.code).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await request(anon.app).get('/health').set('X-Forwarded-For', '203.0.113.8')).status).toBe(200);
    });

    it('counts failed authentication per address, so keys cannot be guessed at full speed', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push((await request(anon.app).get('/v1/test/whoami').set('X-Forwarded-For', '198.51.100.9').set('Authorization', `Bearer svc_guess${i}`)).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    });

    it("leaves public media alone: the networks' crawlers fetch in bursts from few addresses", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) statuses.push((await request(anon.app).get('/v1/test/public-bytes').set('X-Forwarded-For', '198.51.100.77')).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    });

    it('does not count authenticated requests against the address', async () => {
      const token = await anon.token(uniqueName('org'), 'u');
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await request(anon.app).get('/v1/test/whoami').set('X-Forwarded-For', '192.0.2.44').set('Authorization', `Bearer ${token}`)).status);
      expect(statuses).toEqual([200, 200, 200]);
      expect((await request(anon.app).get('/health').set('X-Forwarded-For', '192.0.2.44')).status).toBe(200);
    });
  });
});
