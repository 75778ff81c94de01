import request from 'supertest';
import { SignJWT } from 'jose';
import { uniqueName } from '@svc/testing';
import { confirmationForm, connectThroughHandoff, HandoffBrowser } from '../support/handoff-browser.ts';
import { JWT_SECRET, startSystem, type SystemHarness } from '../support/system-harness.ts';

// The hand-off link of an OAuth connect, used the way a person does it: from a browser that never
// called `start` (the CLI's user, or a dashboard whose server called), against the whole system.
const CAP = 3;
let h: SystemHarness;
beforeAll(async () => {
  h = await startSystem({ services: ['accounts'], env: { OAUTH_HANDOFF_MAX_PER_ORG: String(CAP) } });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const browser = () => new HandoffBrowser(h.env.MEDIA_PUBLIC_BASE_URL!);

interface Started {
  authorize_url: string;
  handoff_url: string;
  handoff_expires_at: string;
}

async function start(auth: string, network = 'x'): Promise<Started> {
  const res = await request(h.gateway).get(`/v1/oauth/${network}/start`).set('Authorization', auth);
  expect(res.status).toBe(200);
  return res.body as Started;
}

function dashboardToken(orgId: string, orgName: string): Promise<string> {
  return new SignJWT({ sub: 'user_1', org_id: orgId, org_name: orgName })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('15m')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

describe('OAuth hand-off links', () => {
  it('connect an account into the organization that started the flow, from a browser without the start cookie', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await h.token(orgId)}`;
    const requested = Date.now();
    const started = await start(auth, 'linkedin');
    const link = new URL(started.handoff_url);
    expect(link.origin).toBe('http://api.test.local');
    expect(link.pathname).toMatch(/^\/v1\/oauth\/handoff\/[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(started.handoff_expires_at)).toBeGreaterThan(requested);

    const person = browser();
    const page = await person.request(started.handoff_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[^']+';/);
    expect(page.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|script-src/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.getSetCookie()).toEqual([
      expect.stringMatching(
        new RegExp(`^svc_handoff=[A-Za-z0-9_-]{43}; Max-Age=\\d+; Path=${link.pathname}; HttpOnly; SameSite=Strict$`),
      ),
    ]);
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(`<h1>Connect a LinkedIn account</h1>`);
    expect(html).toContain(`Connect a LinkedIn account to organization <strong>${orgId}</strong>.`);
    expect(html).toMatch(
      /This link was created at <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time> and works once/,
    );
    expect(html).toContain('<button type="submit">Continue to LinkedIn</button>');

    const form = confirmationForm(html);
    const continued = await person.request(new URL(form.action, started.handoff_url).toString(), {
      method: 'POST',
      form: { confirm: form.confirm },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(continued.status).toBe(303);
    expect(continued.headers.get('location')).toBe(started.authorize_url);
    expect(continued.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^svc_handoff=; Max-Age=0;/),
      expect.stringMatching(
        /^svc_oauth_[0-9a-f]{32}=[A-Za-z0-9_-]+; Max-Age=\d+; Path=\/v1\/oauth\/linkedin\/callback; HttpOnly; SameSite=Lax$/,
      ),
    ]);
    const consent = await person.request(continued.headers.get('location')!);
    const callback = await person.request(consent.headers.get('location')!);
    expect(callback.status).toBe(200);
    const connected = (await callback.json()) as { account_id: string; provider: string };
    expect(connected).toMatchObject({ provider: 'linkedin', reconnected: false });

    const accounts = await request(h.gateway).get('/v1/accounts').set('Authorization', auth);
    expect(accounts.body.items).toEqual([expect.objectContaining({ id: connected.account_id, provider: 'linkedin' })]);
    const stranger = await request(h.gateway)
      .get('/v1/accounts')
      .set('Authorization', `Bearer ${await h.token()}`);
    expect(stranger.body.items).toEqual([]);
  });

  it('work once: a second use answers 410, on Continue and on the page', async () => {
    const started = await start(`Bearer ${await h.token()}`);
    // A second browser opens the page before the first uses the link, so its form is genuine.
    const second = browser();
    const secondForm = confirmationForm(await (await second.request(started.handoff_url)).text());
    expect((await connectThroughHandoff(browser(), started.handoff_url)).status).toBe(200);

    const replay = await second.request(started.handoff_url, {
      method: 'POST',
      form: { confirm: secondForm.confirm },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(replay.status).toBe(410);
    expect(replay.headers.getSetCookie().filter((line) => line.startsWith('svc_oauth_'))).toEqual([]);
    expect(await replay.text()).toContain('<h1>This link has already been used</h1>');
    const again = await second.request(started.handoff_url);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('<h1>This link has already been used</h1>');
  });

  it('refuse a Continue that did not come from the page in this browser, and stay usable', async () => {
    const started = await start(`Bearer ${await h.token()}`);
    const person = browser();
    const form = confirmationForm(await (await person.request(started.handoff_url)).text());
    const post = (who: HandoffBrowser, values: Record<string, string>, site = 'same-origin') =>
      who.request(started.handoff_url, { method: 'POST', form: values, headers: { 'sec-fetch-site': site } });

    // Another browser (an attacker's page auto-posting the form) has no nonce cookie.
    const forged = await post(browser(), { confirm: form.confirm });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('<h1>Confirm on the connection page</h1>');
    expect((await post(person, { confirm: form.confirm }, 'cross-site')).status).toBe(403);
    expect((await post(person, { confirm: `${form.confirm}x` })).status).toBe(403);
    expect((await post(person, {})).status).toBe(403);

    expect((await connectThroughHandoff(person, started.handoff_url)).status).toBe(200);
  });

  it('answer 404 for an unknown or mangled link, with a page', async () => {
    for (const code of ['nope', `zzzzzz.${'A'.repeat(43)}`, 'a.b<script>']) {
      const res = await browser().request(`http://api.test.local/v1/oauth/handoff/${encodeURIComponent(code)}`);
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toContain('<h1>This link is not valid</h1>');
      expect(html).not.toContain('<script');
    }
  });

  it("escape the organization's name from the dashboard token", async () => {
    const orgId = uniqueName('org');
    const name = `<script>alert("hi")</script> & 'Co'`;
    const started = await start(`Bearer ${await dashboardToken(orgId, name)}`, 'x');
    const html = await (await browser().request(started.handoff_url)).text();
    expect(html).toContain(
      `Connect an X account to organization <strong>&lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; &amp; &#39;Co&#39;</strong> (<code>${orgId}</code>).`,
    );
    expect(html).not.toContain('<script>');
  });

  it('bound the outstanding links of one organization, and free a place once one is used', async () => {
    const auth = `Bearer ${await h.token()}`;
    const links = [];
    for (let i = 0; i < CAP; i += 1) links.push(await start(auth));
    const refused = await request(h.gateway).get('/v1/oauth/x/start').set('Authorization', auth);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/unused connection links/),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another organization is not affected.
    await start(`Bearer ${await h.token()}`);

    expect((await connectThroughHandoff(browser(), links[0]!.handoff_url)).status).toBe(200);
    await start(auth);
  });
});
