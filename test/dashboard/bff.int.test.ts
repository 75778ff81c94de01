import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import request from 'supertest';
import {
  signUp,
  startDashboard,
  ISSUER,
  type Browser,
  type DashboardHarness,
} from '../../services/dashboard/test/dashboard-harness.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

// The dashboard in front of a real gateway that trusts its JWKS (and still the harness's HS256
// secret): /api/* carries the session's organization to the gateway in a JWT the browser never sees.
let system: SystemHarness;
let dashboard: DashboardHarness;
let server: Server;
let nextKid: string;
/** Every response the browser got, to prove no JWT was ever among them. */
const seen: request.Response[] = [];

async function api(browser: Browser, method: 'get' | 'post' | 'delete', path: string, body?: object) {
  const res =
    method === 'post'
      ? await browser.post(`/api${path}`, body ?? {})
      : method === 'delete'
        ? await browser.delete(`/api${path}`)
        : await browser.get(`/api${path}`);
  seen.push(res);
  return res;
}

beforeAll(async () => {
  // The dashboard's port first: the gateway is configured with its JWKS URL before either starts.
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  system = await startSystem({
    services: [],
    env: { JWT_JWKS_URL: jwksUrl, JWT_ISSUER: ISSUER, JWT_AUDIENCE: 'svc-api' },
  });
  dashboard = await startDashboard({ GATEWAY_URL: system.env.MEDIA_PUBLIC_BASE_URL! });
  // A rotation under way from the start: the next key is published before the gateway's first fetch
  // of the set, as SIGNING_KEY_PUBLISH_AHEAD_SECONDS ensures in real time (a gateway fetches at most
  // every 30 s, and these tests do not wait).
  nextKid = await dashboard.parts.keys.rotateNow();
  server.on('request', dashboard.app);
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await dashboard?.close();
  await system?.close();
}, 60_000);

describe('/api/* through the dashboard', () => {
  it("acts for the session's active organization only", async () => {
    const a = await signUp(dashboard.app);
    const b = await signUp(dashboard.app);
    const created = await api(a, 'post', '/v1/api-keys', { name: 'from A' });
    expect(created.status).toBe(201);
    expect(created.headers['x-request-id']).toEqual(expect.any(String));
    const listA = await api(a, 'get', '/v1/api-keys');
    const listB = await api(b, 'get', '/v1/api-keys');
    expect(listA.status).toBe(200);
    expect(listA.body.map((key: { id: string }) => key.id)).toContain(created.body.id);
    expect(listB.body.map((key: { id: string }) => key.id)).not.toContain(created.body.id);
    expect((await api(b, 'delete', `/v1/api-keys/${created.body.id}`)).status).toBe(404);
    // The token the gateway saw for A's session names A's organization and user.
    const jwt = await dashboard.parts.identity.minter.tokenFor(a.body.user.id, a.body.active_org_id!);
    expect(decodeJwt(jwt)).toMatchObject({
      sub: a.body.user.id,
      org_id: a.body.active_org_id,
      iss: ISSUER,
      aud: 'svc-api',
    });
    const claims = decodeJwt(jwt);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(900);
  });

  it('refuses a state-changing call without the CSRF token before reaching the gateway', async () => {
    const a = await signUp(dashboard.app);
    const res = await a.post('/api/v1/api-keys', { name: 'no csrf' }, null);
    expect(res.status).toBe(403);
    seen.push(res);
    expect((await api(a, 'get', '/v1/api-keys')).body).toEqual([]);
    const anonymous = await request(dashboard.app).get('/api/v1/api-keys');
    expect(anonymous.status).toBe(401);
  });

  it('passes the gateway errors through in our error body', async () => {
    const a = await signUp(dashboard.app);
    const res = await api(a, 'post', '/v1/api-keys', { name: '' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_error', request_id: expect.any(String) });
  });

  it('accepts tokens of both keys during a rotation', async () => {
    const a = await signUp(dashboard.app);
    const b = await signUp(dashboard.app);
    const minter = dashboard.parts.identity.minter;
    const oldToken = await minter.tokenFor(a.body.user.id, a.body.active_org_id!);
    expect(decodeProtectedHeader(oldToken).kid).not.toBe(nextKid);
    const jwks = await request(dashboard.app).get('/.well-known/jwks.json');
    expect(jwks.body.keys.map((key: { kid: string }) => key.kid)).toEqual([
      decodeProtectedHeader(oldToken).kid,
      nextKid,
    ]);
    expect(JSON.stringify(jwks.body)).not.toMatch(/"d":/);
    expect((await api(a, 'get', '/v1/api-keys')).status).toBe(200);

    dashboard.clock.now = new Date(dashboard.clock.now.getTime() + 121_000);
    const newToken = await minter.tokenFor(b.body.user.id, b.body.active_org_id!);
    expect(decodeProtectedHeader(newToken).kid).toBe(nextKid);
    expect((await api(b, 'get', '/v1/api-keys')).status).toBe(200);
    for (const token of [oldToken, newToken]) {
      const direct = await request(system.gateway).get('/v1/api-keys').set('Authorization', `Bearer ${token}`);
      expect(direct.status).toBe(200);
    }
    // The previous key stays published beside the new one, which now signs.
    const after = await request(dashboard.app).get('/.well-known/jwks.json');
    expect(after.body.keys.map((key: { kid: string }) => key.kid)).toEqual([
      decodeProtectedHeader(oldToken).kid,
      nextKid,
    ]);
  });

  it('never shows the browser a JWT', () => {
    expect(seen.length).toBeGreaterThan(5);
    for (const res of seen) {
      const everything = JSON.stringify({ headers: res.headers, body: res.body, text: res.text });
      expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
      expect(everything.toLowerCase()).not.toContain('bearer');
    }
  });
});
