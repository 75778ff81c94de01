import request from 'supertest';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { ApiKeysRepository } from '../src/data/api-keys.repository.ts';
import { signJwt, startGatewayHarness, type GatewayHarness } from './gateway-harness.ts';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(async () => {
  await h.close();
});

function expectUnauthorized(res: request.Response, messagePart: RegExp): void {
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('unauthorized');
  expect(res.body.error.message).toMatch(messagePart);
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
}

describe('dashboard JWT', () => {
  it('rejects a request without credentials', async () => {
    expectUnauthorized(await request(h.app).get('/v1/api-keys'), /Authorization header/);
  });

  it('rejects a header that is not a bearer credential', async () => {
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', 'Basic dXNlcjpwYXNz'), /Bearer/);
  });

  it('rejects a malformed token', async () => {
    expectUnauthorized(
      await request(h.app).get('/v1/api-keys').set('Authorization', 'Bearer not.a.jwt'),
      /malformed|could not be verified/,
    );
  });

  it('rejects an expired token', async () => {
    const token = await signJwt({ sub: 'u', org_id: 'org_expired' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${token}`), /expired/);
  });

  it('rejects a token signed with another algorithm than the pinned one', async () => {
    const hs512 = await signJwt({ sub: 'u', org_id: 'org_alg' }, { alg: 'HS512', expiresIn: '5m' });
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${hs512}`), /algorithm/);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs256 = await new SignJWT({ sub: 'u', org_id: 'org_alg' })
      .setProtectedHeader({ alg: 'RS256' })
      .setExpirationTime('5m')
      .sign(privateKey);
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${rs256}`), /algorithm/);
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"u","org_id":"o","exp":9999999999}').toString('base64url')}.`;
    expectUnauthorized(
      await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${unsigned}`),
      /algorithm|malformed/,
    );
  });

  it('rejects a token signed with the wrong secret', async () => {
    const token = await signJwt(
      { sub: 'u', org_id: 'org_x' },
      { secret: 'another-secret-of-at-least-32-characters!!', expiresIn: '5m' },
    );
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${token}`), /signature/);
  });

  it('rejects tokens without exp, sub or a valid org_id', async () => {
    const noExp = await signJwt({ sub: 'u', org_id: 'org_x' });
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${noExp}`), /exp/);
    const badOrg = await signJwt({ sub: 'u', org_id: 'has spaces!' }, { expiresIn: '5m' });
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${badOrg}`), /org_id/);
    const noSub = await signJwt({ org_id: 'org_x' }, { expiresIn: '5m' });
    expectUnauthorized(await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${noSub}`), /sub/);
  });

  it('accepts a valid token and creates the organization on first sight', async () => {
    const token = await h.token('org_first_sight');
    const res = await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(await h.db.$queryRawUnsafe('SELECT id FROM organizations WHERE id = $1', 'org_first_sight')).toEqual([
      { id: 'org_first_sight' },
    ]);
  });
});

describe('API keys', () => {
  it('creates a key shown once, lists it without secrets, and authenticates with it', async () => {
    const token = await h.token('org_keys');
    const created = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'CI key' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_[0-9A-Za-z]{32,}$/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    const [stored] = await h.db.$queryRawUnsafe<unknown[]>(
      'SELECT * FROM api_keys WHERE id = $1::uuid',
      created.body.id,
    );
    expect(stored).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain(created.body.key);

    const listed = await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${token}`);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0]).toEqual({
      id: created.body.id,
      name: 'CI key',
      prefix: created.body.prefix,
      scope: 'full',
      created_at: created.body.created_at,
      last_used_at: null,
    });

    const who = await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${created.body.key}`);
    expect(who.status).toBe(200);
    expect(who.body).toEqual({ org_id: 'org_keys', kind: 'api_key' });
  });

  it('answers 403 to a valid API key on a dashboard-JWT-only endpoint', async () => {
    const token = await h.token('org_jwt_only');
    const { body } = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'k' });
    for (const call of [request(h.app).get('/v1/api-keys'), request(h.app).post('/v1/api-keys').send({ name: 'x' })]) {
      const res = await call.set('Authorization', `Bearer ${body.key}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('rejects a revoked key at once, and unknown or tampered keys', async () => {
    const token = await h.token('org_revoke');
    const { body } = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'k' });
    expect((await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${body.key}`)).status).toBe(200);
    expect(
      (await request(h.app).delete(`/v1/api-keys/${body.id}`).set('Authorization', `Bearer ${token}`)).status,
    ).toBe(204);
    expectUnauthorized(
      await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${body.key}`),
      /revoked/,
    );

    const tampered = `${body.key.slice(0, -1)}${body.key.endsWith('a') ? 'b' : 'a'}`;
    expectUnauthorized(
      await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${tampered}`),
      /not valid/,
    );
    expectUnauthorized(
      await request(h.app).get('/v1/test/whoami').set('Authorization', 'Bearer svc_short'),
      /not valid/,
    );
  });

  it('keeps organizations apart: a foreign or unknown key id is 404', async () => {
    const owner = await h.token('org_owner');
    const other = await h.token('org_other');
    const { body } = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${owner}`)
      .send({ name: 'mine' });
    const foreign = await request(h.app).delete(`/v1/api-keys/${body.id}`).set('Authorization', `Bearer ${other}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${other}`)).body).toEqual([]);
    expect(
      (await request(h.app).delete('/v1/api-keys/not-a-uuid').set('Authorization', `Bearer ${owner}`)).status,
    ).toBe(404);
    expect((await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${body.key}`)).status).toBe(200);
  });

  it('records when a key was last used, and lists it', async () => {
    const token = await h.token('org_used');
    const { body } = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'k' });
    expect((await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${body.key}`)).status).toBe(200);
    // The use is recorded after the answer, without holding the request.
    let listed: { last_used_at: string | null }[] = [];
    for (let tries = 0; tries < 50 && listed[0]?.last_used_at == null; tries += 1) {
      listed = (await request(h.app).get('/v1/api-keys').set('Authorization', `Bearer ${token}`)).body;
      if (listed[0]?.last_used_at == null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Date.parse(listed[0]!.last_used_at!)).toBeGreaterThanOrEqual(Date.parse(body.created_at));
  });

  it('draws a new key when its prefix is taken, and lets any other failure of the insert through', async () => {
    const repository = new ApiKeysRepository(h.db);
    const token = await h.token('org_prefix');
    const { body } = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'k' });
    const record = {
      id: '00000000-0000-4000-8000-000000000001',
      orgId: 'org_prefix',
      name: 'again',
      hash: 'h',
      scope: 'full',
      createdBy: 'user_1',
    };
    // A taken prefix answers false: the service draws another key (ApiKeyService.create).
    expect(await repository.create({ ...record, prefix: body.prefix })).toBe(false);
    // An organization that does not exist is not a taken prefix: the error goes up.
    await expect(
      repository.create({ ...record, orgId: 'org_never_seen', prefix: 'svc_unique_prefix' }),
    ).rejects.toMatchObject({ code: '23503' });
  });

  it('validates the create body', async () => {
    const token = await h.token();
    const empty = await request(h.app).post('/v1/api-keys').set('Authorization', `Bearer ${token}`).send({ name: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details[0].path).toBe('/body/name');
    const tooLong = await request(h.app)
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'x'.repeat(121) });
    expect(tooLong.status).toBe(400);
  });
});
