// The gateway driven like an attacker would: forged credentials, another organization's ids on every
// route that takes one, every SSRF form, malformed bodies and queries. Every answer must be a 4xx with
// our error body (never a 500, never a hang) and nothing of the other organization may show.
import { SignJWT } from 'jose';
import request, { type Response } from 'supertest';
import { uniqueName } from '@svc/testing';
import { connectAccount, validBody } from '../publishing/publishing-support.ts';
import { JWT_SECRET, startSystem, type SystemHarness } from '../support/system-harness.ts';

let h: SystemHarness;
let victim: { auth: string; orgId: string; accountId: string; jobId: string; apiKeyId: string; oauthAppId: string };
let attacker: string;

function expectRefused(res: Response, statuses: number[]): void {
  expect(statuses).toContain(res.status);
  expect(typeof res.body?.error?.code).toBe('string');
}

beforeAll(async () => {
  h = await startSystem({ services: ['accounts', 'publisher', 'scheduler'] });
  const orgId = uniqueName('victim');
  const auth = `Bearer ${await h.token(orgId)}`;
  const accountId = await connectAccount(h, auth, 'x');
  const job = await request(h.gateway)
    .post('/v1/publish')
    .set('Authorization', auth)
    .send({
      ...validBody(h, [accountId]),
      media_urls: undefined,
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
    });
  expect(job.status).toBe(202);
  const key = await request(h.gateway).post('/v1/api-keys').set('Authorization', auth).send({ name: 'victim key' });
  const app = await request(h.gateway)
    .post('/v1/oauth-apps')
    .set('Authorization', auth)
    .send({ provider: 'x', name: 'victim app', client_id: 'c', client_secret: 's' });
  victim = { auth, orgId, accountId, jobId: job.body.job_id, apiKeyId: key.body.id, oauthAppId: app.body.id };
  attacker = `Bearer ${await h.token(uniqueName('attacker'))}`;
}, 90_000);
afterAll(async () => {
  await h?.close();
});

describe('forged and broken credentials', () => {
  const forgeries = async (): Promise<[string, string][]> => {
    const secret = new TextEncoder().encode(JWT_SECRET);
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const claims = Buffer.from(
      JSON.stringify({ sub: 'u', org_id: victim.orgId, exp: Math.floor(Date.now() / 1000) + 600 }),
    ).toString('base64url');
    return [
      ['alg none', `Bearer ${header}.${claims}.`],
      [
        'wrong secret',
        `Bearer ${await new SignJWT({ sub: 'u', org_id: victim.orgId })
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime('5m')
          .sign(new TextEncoder().encode('x'.repeat(40)))}`,
      ],
      [
        'expired',
        `Bearer ${await new SignJWT({ sub: 'u', org_id: victim.orgId })
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
          .sign(secret)}`,
      ],
      [
        'no org',
        `Bearer ${await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(secret)}`,
      ],
      [
        'bad org id',
        `Bearer ${await new SignJWT({ sub: 'u', org_id: "x' OR 1=1" }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(secret)}`,
      ],
      ['junk API key', 'Bearer svc_0000000000000000000000000000000000000000'],
      ['not a bearer', 'Basic dXNlcjpwYXNz'],
    ];
  };

  it('answers 401 to every forgery on every kind of endpoint', async () => {
    for (const [name, authorization] of await forgeries()) {
      for (const [method, path] of [
        ['get', '/v1/accounts'],
        ['post', '/v1/publish'],
        ['get', '/v1/stats'],
        ['get', `/v1/posts/${victim.jobId}`],
      ] as const) {
        const agent = request(h.gateway);
        const res = await agent[method](path)
          .set('Authorization', authorization)
          .send(method === 'post' ? { text: 'x', account_ids: [victim.accountId] } : undefined);
        expect({ name, path, status: res.status }).toEqual({ name, path, status: 401 });
      }
    }
  });
});

describe("another organization's ids", () => {
  it('answer 404 in the path and 400 in a body, on every route that takes one, and change nothing', async () => {
    const pathRoutes: [string, string, Record<string, unknown>?][] = [
      ['delete', `/v1/accounts/${victim.accountId}`],
      ['post', `/v1/accounts/${victim.accountId}/refresh`],
      ['post', `/v1/publish/${victim.jobId}/cancel`],
      ['get', `/v1/posts/${victim.jobId}`],
      ['post', `/v1/posts/${victim.jobId}/cancel`],
      ['delete', `/v1/api-keys/${victim.apiKeyId}`],
    ];
    for (const [method, path] of pathRoutes) {
      const res = await (request(h.gateway) as unknown as Record<string, (p: string) => request.Test>)[method]!(
        path,
      ).set('Authorization', attacker);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(JSON.stringify(res.body)).not.toContain(victim.orgId);
    }
    const start = await request(h.gateway)
      .get('/v1/oauth/x/start')
      .query({ oauth_app_id: victim.oauthAppId })
      .set('Authorization', attacker);
    expect(start.status).toBe(404);
    const publish = await request(h.gateway)
      .post('/v1/publish')
      .set('Authorization', attacker)
      .send({ text: 'mine now', account_ids: [victim.accountId] });
    expect(publish.status).toBe(400);
    for (const path of ['/v1/accounts', '/v1/publish', '/v1/posts', '/v1/oauth-apps', '/v1/api-keys']) {
      const list = await request(h.gateway).get(path).set('Authorization', attacker);
      expect({ path, status: list.status }).toEqual({ path, status: 200 });
      expect(JSON.stringify(list.body)).not.toMatch(
        new RegExp(`${victim.accountId}|${victim.jobId}|${victim.apiKeyId}|${victim.oauthAppId}`),
      );
    }
    // The victim's things are all still there.
    const still = await request(h.gateway).get(`/v1/posts/${victim.jobId}`).set('Authorization', victim.auth);
    expect(still.body.status).toBe('scheduled');
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', victim.auth)).body.total).toBe(1);
  });
});

describe('SSRF through media URLs', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[::a9fe:a9fe]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[::ffff:0:a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::]/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_INFO',
  ])('refuses %s before anything is fetched', async (url) => {
    const res = await request(h.gateway)
      .post('/v1/publish')
      .set('Authorization', victim.auth)
      .send({ text: 'ssrf', account_ids: [victim.accountId], media_urls: [url] });
    expectRefused(res, [400]);
  });
});

describe('malformed input', () => {
  it('answers 4xx with the error body, never 500', async () => {
    // Written as text: superagent's own (recursive) serializer overflows the test's stack near this depth.
    const deep = `${'{"a":'.repeat(6000)}{}${'}'.repeat(6000)}`;
    const attempts: [string, () => request.Test][] = [
      [
        'NUL in q (history)',
        () => request(h.gateway).get('/v1/publish').query({ q: 'a\u0000b' }).set('Authorization', victim.auth),
      ],
      [
        'NUL in q (accounts)',
        () => request(h.gateway).get('/v1/accounts').query({ q: 'a\u0000b' }).set('Authorization', victim.auth),
      ],
      [
        'NUL in text',
        () =>
          request(h.gateway)
            .post('/v1/publish')
            .set('Authorization', victim.auth)
            .send({ text: 'a\u0000b', account_ids: [victim.accountId] }),
      ],
      [
        '6,000 levels of provider_options',
        () =>
          request(h.gateway)
            .post('/v1/publish')
            .set('Authorization', victim.auth)
            .set('Content-Type', 'application/json')
            .send(`{"text":"deep","account_ids":["${victim.accountId}"],"provider_options":{"x":${deep}}}`),
      ],
      [
        'accounts cursor with a non-UUID id',
        () =>
          request(h.gateway)
            .get('/v1/accounts')
            .query({
              cursor: Buffer.from(JSON.stringify({ t: new Date().toISOString(), i: 'nope' })).toString('base64url'),
            })
            .set('Authorization', victim.auth),
      ],
      [
        'history cursor of junk',
        () => request(h.gateway).get('/v1/publish').query({ cursor: '%%%' }).set('Authorization', victim.auth),
      ],
      [
        'malformed JSON',
        () =>
          request(h.gateway)
            .post('/v1/publish')
            .set('Authorization', victim.auth)
            .set('Content-Type', 'application/json')
            .send('{"text":'),
      ],
      ['array body', () => request(h.gateway).post('/v1/publish').set('Authorization', victim.auth).send([1, 2])],
      [
        'huge limit',
        () => request(h.gateway).get('/v1/publish').query({ limit: '1e309' }).set('Authorization', victim.auth),
      ],
      [
        'negative limit',
        () => request(h.gateway).get('/v1/accounts').query({ limit: '-1' }).set('Authorization', victim.auth),
      ],
      [
        'repeated query parameter',
        () => request(h.gateway).get('/v1/publish?status=queued&status=failed').set('Authorization', victim.auth),
      ],
      ['path id of junk', () => request(h.gateway).get('/v1/posts/..%2F..%2Fetc').set('Authorization', victim.auth)],
      [
        'scheduled_at without timezone',
        () =>
          request(h.gateway)
            .post('/v1/publish')
            .set('Authorization', victim.auth)
            .send({ text: 't', account_ids: [victim.accountId], scheduled_at: '2030-01-01T00:00:00' }),
      ],
      [
        'prototype pollution keys',
        () =>
          request(h.gateway)
            .post('/v1/publish')
            .set('Authorization', victim.auth)
            .set('Content-Type', 'application/json')
            .send('{"text":"t","account_ids":["a"],"__proto__":{"admin":true}}'),
      ],
      [
        'callback with junk state',
        () =>
          request(h.gateway)
            .get('/v1/oauth/x/callback')
            .query({ code: 'c', state: 'a'.repeat(4000) }),
      ],
      ['unknown provider', () => request(h.gateway).get('/v1/oauth/myspace/start').set('Authorization', victim.auth)],
    ];
    for (const [name, attempt] of attempts) {
      const res = await attempt();
      expect({ name, status: res.status >= 400 && res.status < 500, code: typeof res.body?.error?.code }).toEqual({
        name,
        status: true,
        code: 'string',
      });
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});
