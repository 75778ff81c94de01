import { uniqueName } from '@svc/testing';
import request from 'supertest';
import {
  PASSWORD,
  sessionCookieOf,
  signIn,
  signUp,
  startDashboard,
  type DashboardHarness,
} from './dashboard-harness.ts';

let h: DashboardHarness;
beforeAll(async () => {
  // One proxy hop: each throttling test names its client address in X-Forwarded-For.
  h = await startDashboard({ LOGIN_FAILURES_PER_ADDRESS: '6', LOGIN_FAILURES_PER_ACCOUNT: '3', TRUST_PROXY_HOPS: '1' });
}, 60_000);
afterAll(() => h?.close());

describe('sign-up, sign-in and sign-out', () => {
  it('signs a new user up with their own organization, in a Secure HttpOnly SameSite=Lax cookie', async () => {
    const email = `${uniqueName('new')}@Example.com`;
    const res = await request(h.app)
      .post('/auth/signup')
      .send({ email, password: PASSWORD, organization_name: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      user: { email: email.toLowerCase() },
      organizations: [{ name: 'Acme', role: 'owner' }],
      csrf_token: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(res.body.active_org_id).toBe(res.body.organizations[0].id);
    const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0] ?? '';
    expect(cookie).toMatch(/^__Host-svc_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    // Only the token's hash is stored.
    const token = sessionCookieOf(res).split('=')[1]!;
    const rows = await h.db.session.findMany({ where: { userId: res.body.user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.idHash).not.toContain(token);
    expect(rows[0]!.idHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a second account with the same email, and bad input with a 400 naming it', async () => {
    const browser = await signUp(h.app);
    const again = await request(h.app)
      .post('/auth/signup')
      .send({ email: browser.body.user.email.toUpperCase(), password: PASSWORD });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', request_id: expect.any(String) });
    const short = await request(h.app).post('/auth/signup').send({ email: 'a@b.co', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.details).toEqual([expect.objectContaining({ path: '/body/password' })]);
    expect(JSON.stringify(short.body)).not.toContain('short"');
  });

  it('signs in with the right password, and answers a wrong password and an unknown email alike', async () => {
    const { body } = await signUp(h.app);
    const browser = await signIn(h.app, body.user.email);
    expect((await browser.get('/auth/me')).body).toMatchObject({ user: { id: body.user.id } });
    const wrong = await request(h.app)
      .post('/auth/signin')
      .send({ email: body.user.email, password: 'not the password' });
    const unknown = await request(h.app).post('/auth/signin').send({ email: 'nobody@example.com', password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('signs out this session only, or every session of the user', async () => {
    const first = await signUp(h.app);
    const second = await signIn(h.app, first.body.user.email);
    const third = await signIn(h.app, first.body.user.email);
    const out = await first.post('/auth/signout');
    expect(out.status).toBe(204);
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? [])[0]).toMatch(/Max-Age=0/);
    expect((await first.get('/auth/me')).status).toBe(401);
    expect((await second.get('/auth/me')).status).toBe(200);
    const all = await second.post('/auth/signout-all');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ ended: 2 });
    expect((await second.get('/auth/me')).status).toBe(401);
    expect((await third.get('/auth/me')).status).toBe(401);
  });

  it('ends a session at its expiry', async () => {
    const browser = await signUp(h.app);
    const started = h.clock.now;
    try {
      h.clock.now = new Date(started.getTime() + 169 * 3_600_000);
      expect((await browser.get('/auth/me')).status).toBe(401);
    } finally {
      h.clock.now = started;
    }
  });
});

describe('CSRF', () => {
  it('refuses a state-changing request without the token or with a wrong one, and from another origin', async () => {
    const browser = await signUp(h.app);
    const missing = await browser.post('/auth/signout', {}, null);
    expect(missing.status).toBe(403);
    expect(missing.body.error.code).toBe('forbidden');
    const wrong = await browser.post('/auth/signout', {}, 'f'.repeat(64));
    expect(wrong.status).toBe(403);
    const otherUsers = await signUp(h.app);
    expect((await browser.post('/auth/signout', {}, otherUsers.csrf)).status).toBe(403);
    expect((await browser.get('/auth/me')).status).toBe(200);
    const foreign = await request(h.app)
      .post('/auth/signin')
      .set('Origin', 'https://evil.example')
      .send({ email: browser.body.user.email, password: PASSWORD });
    expect(foreign.status).toBe(403);
    const formPost = await request(h.app)
      .post('/auth/signin')
      .type('form')
      .send({ email: browser.body.user.email, password: PASSWORD });
    expect(formPost.status).toBe(400);
  });
});

describe('sign-in throttling', () => {
  it('refuses an account after too many failures, from any address', async () => {
    const { body } = await signUp(h.app);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const res = await request(h.app)
        .post('/auth/signin')
        .set('X-Forwarded-For', `10.0.0.${attempt}`)
        .send({ email: body.user.email, password: 'wrong password' });
      expect(res.status).toBe(401);
    }
    const blocked = await request(h.app).post('/auth/signin').send({ email: body.user.email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses an address after too many failures, whatever account it tries', async () => {
    const victims = await Promise.all([signUp(h.app), signUp(h.app)]);
    const agent = () => request(h.app).post('/auth/signin').set('X-Forwarded-For', '10.1.0.1');
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const res = await agent().send({ email: `${uniqueName('guess')}@example.com`, password: 'wrong password' });
      expect(res.status).toBe(401);
    }
    const blocked = await agent().send({ email: victims[0].body.user.email, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.message).toMatch(/this address/);
    const elsewhere = await request(h.app)
      .post('/auth/signin')
      .set('X-Forwarded-For', '10.1.0.2')
      .send({ email: victims[1].body.user.email, password: PASSWORD });
    expect(elsewhere.status).toBe(200);
  });
});
