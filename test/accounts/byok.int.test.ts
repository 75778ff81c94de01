import request from 'supertest';
import { uniqueName } from '@svc/testing';
import { testProviders } from '../../libs/providers/test/support/sandbox.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

let h: SystemHarness;
beforeAll(async () => {
  h = await startSystem({ services: ['accounts'] });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** The network account a BYOK token acts for, as the network itself reports it. */
async function platformIdFor(
  network: 'instagram' | 'facebook' | 'x' | 'linkedin' | 'tiktok',
  token: string,
): Promise<{ id: string; extras: Record<string, string | undefined> }> {
  const profile = await testProviders(h.sandbox.baseUrl)[network].profile.fetch({ accessToken: token });
  return { id: profile.platformAccountId, extras: profile.extras };
}

async function connect(
  auth: string,
  network: 'instagram' | 'facebook' | 'x' | 'linkedin' | 'tiktok',
  token = `byok-${uniqueName(network)}`,
) {
  const { id, extras } = await platformIdFor(network, token);
  const credentials: Record<string, string> = { access_token: token };
  for (const key of ['page_id', 'ig_user_id', 'author_urn'] as const)
    if (extras[key] !== undefined) credentials[key] = extras[key]!;
  return request(h.gateway)
    .post('/v1/accounts')
    .set('Authorization', auth)
    .send({ provider: network, platform_account_id: id, credentials });
}

async function accountsDb(): Promise<{ $queryRawUnsafe<T>(sql: string, ...values: unknown[]): Promise<T> }> {
  return h.workers.accounts!.runtime.db as never;
}

describe('BYOK accounts through the gateway', () => {
  it.each(['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const)(
    'connects a %s account after checking the token with the network',
    async (network) => {
      const auth = `Bearer ${await h.token()}`;
      const token = `byok-${uniqueName(network)}`;
      const res = await connect(auth, network, token);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        provider: network,
        platform: network,
        health: 'active',
        connection_type: 'byok',
      });
      expect(JSON.stringify(res.body)).not.toContain(token);
      const [row] = await (
        await accountsDb()
      ).$queryRawUnsafe<{ access_token: string }[]>(
        'SELECT access_token FROM accounts WHERE id = $1::uuid',
        res.body.id,
      );
      expect(row!.access_token).toMatch(/^v1\.k1\./);
      expect(row!.access_token).not.toContain(token);
    },
  );

  it('accepts `platform` for `provider`, answers both, and refuses two different values', async () => {
    const auth = `Bearer ${await h.token()}`;
    const token = `byok-${uniqueName('x')}`;
    const { id } = await platformIdFor('x', token);
    const res = await request(h.gateway)
      .post('/v1/accounts')
      .set('Authorization', auth)
      .send({ platform: 'x', platform_account_id: id, credentials: { access_token: token } });
    expect(res.status).toBe(201);
    expect(res.body.provider).toBe('x');
    expect(res.body.platform).toBe('x');
    const both = await request(h.gateway)
      .post('/v1/accounts')
      .set('Authorization', auth)
      .send({ provider: 'x', platform: 'tiktok', platform_account_id: id, credentials: { access_token: token } });
    expect(both.status).toBe(400);
  });

  it('rejects a token the network refuses, storing nothing', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.token(orgId)}`;
    const res = await request(h.gateway)
      .post('/v1/accounts')
      .set('Authorization', auth)
      .send({ provider: 'x', platform_account_id: '123', credentials: { access_token: 'invalid_token' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toMatch(/^X rejected the access token/);
    const list = await request(h.gateway).get('/v1/accounts').set('Authorization', auth);
    expect(list.body.total).toBe(0);
  });

  it('rejects credentials that act for another network account than the one named', async () => {
    const auth = `Bearer ${await h.token()}`;
    const res = await request(h.gateway)
      .post('/v1/accounts')
      .set('Authorization', auth)
      .send({
        provider: 'tiktok',
        platform_account_id: 'someone-else',
        credentials: { access_token: `byok-${uniqueName('tt')}` },
      });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('/body/platform_account_id');
  });

  it('compares the named account exactly: a prefixed or suffixed id is refused, a LinkedIn URN is the same id', async () => {
    const auth = `Bearer ${await h.token()}`;
    const token = `byok-${uniqueName('x')}`;
    const { id } = await platformIdFor('x', token);
    for (const spoofed of [`spoofed:${id}`, `urn:li:person:${id}x`, `${id}:other`]) {
      const res = await request(h.gateway)
        .post('/v1/accounts')
        .set('Authorization', auth)
        .send({ provider: 'x', platform_account_id: spoofed, credentials: { access_token: token } });
      expect({ spoofed, status: res.status }).toEqual({ spoofed, status: 400 });
    }
    const liToken = `byok-${uniqueName('li')}`;
    const li = await platformIdFor('linkedin', liToken);
    const bare = li.id.replace(/^urn:li:person:/, '');
    const res = await request(h.gateway)
      .post('/v1/accounts')
      .set('Authorization', auth)
      .send({ provider: 'linkedin', platform_account_id: bare, credentials: { access_token: liToken } });
    expect(res.status).toBe(201);
    const [row] = await (
      await accountsDb()
    ).$queryRawUnsafe<{ platform_account_id: string }[]>(
      'SELECT platform_account_id FROM accounts WHERE id = $1::uuid',
      res.body.id,
    );
    expect(row!.platform_account_id).toBe(li.id);
  });

  it('validates the body', async () => {
    const auth = `Bearer ${await h.token()}`;
    const cases = [
      { platform_account_id: '1', credentials: { access_token: 't' } },
      { provider: 'myspace', platform_account_id: '1', credentials: { access_token: 't' } },
      { provider: 'x', platform_account_id: '1', credentials: {} },
      { provider: 'x', platform_account_id: '1', credentials: { access_token: 't', password: 'p' } },
      { provider: 'x', credentials: { access_token: 't' } },
    ];
    for (const body of cases)
      expect((await request(h.gateway).post('/v1/accounts').set('Authorization', auth).send(body)).status).toBe(400);
    expect((await request(h.gateway).post('/v1/accounts').send(cases[0]!)).status).toBe(401);
  });

  it('lists with provider filter, search, keyset pagination and total; works with an API key', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.apiKey(orgId)}`;
    const created: string[] = [];
    for (const network of ['x', 'x', 'tiktok', 'linkedin', 'x', 'tiktok', 'x'] as const)
      created.push((await connect(auth, network)).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(h.gateway)
        .get('/v1/accounts')
        .query({ limit: 3, ...(cursor === null ? {} : { cursor }) })
        .set('Authorization', auth);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(7);
      seen.push(...res.body.items.map((item: { id: string }) => item.id));
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(created));
    expect(seen).toEqual([...created].reverse());

    const xOnly = await request(h.gateway).get('/v1/accounts?provider=x').set('Authorization', auth);
    expect(xOnly.body.total).toBe(4);
    const handle = xOnly.body.items[0].handle as string;
    const search = await request(h.gateway)
      .get('/v1/accounts')
      .query({ q: handle.slice(0, -1).toUpperCase() })
      .set('Authorization', auth);
    expect(search.body.items.map((item: { handle: string }) => item.handle)).toContain(handle);
    expect((await request(h.gateway).get('/v1/accounts?cursor=garbage').set('Authorization', auth)).status).toBe(400);
    expect((await request(h.gateway).get('/v1/accounts?limit=0').set('Authorization', auth)).status).toBe(400);
    expect((await request(h.gateway).get('/v1/accounts?limit=101').set('Authorization', auth)).status).toBe(400);
  });

  it('reconnecting the same network account keeps one account with fresh credentials', async () => {
    const auth = `Bearer ${await h.token()}`;
    const token = `byok-${uniqueName('li')}`;
    const first = await connect(auth, 'linkedin', token);
    const again = await connect(auth, 'linkedin', token);
    expect(again.body.id).toBe(first.body.id);
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(1);
  });

  it('keeps organizations apart: foreign ids are 404 everywhere', async () => {
    const owner = `Bearer ${await h.token()}`;
    const other = `Bearer ${await h.token()}`;
    const { body } = await connect(owner, 'x');
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', other)).body.total).toBe(0);
    expect((await request(h.gateway).delete(`/v1/accounts/${body.id}`).set('Authorization', other)).status).toBe(404);
    expect((await request(h.gateway).post(`/v1/accounts/${body.id}/refresh`).set('Authorization', other)).status).toBe(
      404,
    );
    expect((await request(h.gateway).post('/v1/accounts/not-a-uuid/refresh').set('Authorization', owner)).status).toBe(
      404,
    );
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', owner)).body.total).toBe(1);
  });

  it('deletes with 204, then 404', async () => {
    const auth = `Bearer ${await h.token()}`;
    const { body } = await connect(auth, 'tiktok');
    expect((await request(h.gateway).delete(`/v1/accounts/${body.id}`).set('Authorization', auth)).status).toBe(204);
    expect((await request(h.gateway).delete(`/v1/accounts/${body.id}`).set('Authorization', auth)).status).toBe(404);
    expect((await request(h.gateway).get('/v1/accounts').set('Authorization', auth)).body.total).toBe(0);
  });

  it('refresh re-validates a BYOK token that has no refresh token: 200 while the network accepts it', async () => {
    const auth = `Bearer ${await h.token()}`;
    const { body } = await connect(auth, 'x');
    const res = await request(h.gateway).post(`/v1/accounts/${body.id}/refresh`).set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: body.id, health: 'active', token_expires_at: null });
  });
});

describe('concurrent connects', () => {
  it('of one network account end with one account', async () => {
    const auth = `Bearer ${await h.token()}`;
    const token = `byok-${uniqueName('x')}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => connect(auth, 'x', token)));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });
});
