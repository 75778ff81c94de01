import request from 'supertest';
import { decodeJwt } from 'jose';
import { devTokenRoutes, devTokenSettings } from '../src/routes/dev-token.routes.ts';
import { JWT_SECRET, startGatewayHarness, type GatewayHarness } from './gateway-harness.ts';

describe('POST /v1/dev/token in development', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      extraRoutes: () => devTokenRoutes(devTokenSettings({ NODE_ENV: 'development', JWT_SECRET })),
    });
  });
  afterAll(async () => h.close());

  it('mints a 15-minute dashboard token for org_dev that the gateway accepts', async () => {
    const res = await request(h.app).post('/v1/dev/token').send({});
    expect(res.status).toBe(201);
    expect(res.body.org_id).toBe('org_dev');
    const claims = decodeJwt(res.body.token as string);
    expect(claims).toMatchObject({ org_id: 'org_dev', sub: 'user_dev' });
    expect(claims.exp! - claims.iat!).toBe(15 * 60);
    expect(new Date(res.body.expires_at as string).getTime()).toBe(claims.exp! * 1000);
    const who = await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${res.body.token}`);
    expect(who.body).toEqual({ org_id: 'org_dev', kind: 'jwt' });
  });

  it('takes another organization, and refuses a malformed one', async () => {
    const res = await request(h.app).post('/v1/dev/token').send({ org_id: 'org_mine' });
    expect(res.status).toBe(201);
    const who = await request(h.app).get('/v1/test/whoami').set('Authorization', `Bearer ${res.body.token}`);
    expect(who.body.org_id).toBe('org_mine');
    expect((await request(h.app).post('/v1/dev/token').send({ org_id: 'not valid!' })).status).toBe(400);
  });
});

describe('POST /v1/dev/token outside development', () => {
  it('is enabled only with NODE_ENV=development and JWT_SECRET', () => {
    expect(devTokenSettings({ NODE_ENV: 'development', JWT_SECRET }).enabled).toBe(true);
    expect(devTokenSettings({ NODE_ENV: 'development' }).enabled).toBe(false);
    expect(devTokenSettings({ NODE_ENV: 'production', JWT_SECRET }).enabled).toBe(false);
    expect(devTokenSettings({ NODE_ENV: 'test', JWT_SECRET }).enabled).toBe(false);
  });

  it('answers 404 not_found saying it exists only in development', async () => {
    const h = await startGatewayHarness({
      extraRoutes: () => devTokenRoutes(devTokenSettings({ NODE_ENV: 'production', JWT_SECRET })),
    });
    try {
      const res = await request(h.app).post('/v1/dev/token').send({});
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.message).toMatch(/only in development/);
    } finally {
      await h.close();
    }
  });
});
