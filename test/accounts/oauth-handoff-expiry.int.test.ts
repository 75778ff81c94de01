import request from 'supertest';
import { waitFor } from '@svc/testing';
import { HandoffBrowser } from '../support/handoff-browser.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

// Hand-off links that expire within a second (OAUTH_HANDOFF_TTL_SECONDS=1), and a cap of one
// outstanding link per organization, which an expired link no longer holds.
let h: SystemHarness;
beforeAll(async () => {
  h = await startSystem({
    services: ['accounts'],
    env: { OAUTH_HANDOFF_TTL_SECONDS: '1', OAUTH_HANDOFF_MAX_PER_ORG: '1' },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('an expired OAuth hand-off link', () => {
  it('answers 410 on the page and on Continue, and no longer counts against the cap', async () => {
    const auth = `Bearer ${await h.token()}`;
    const start = () => request(h.gateway).get('/v1/oauth/tiktok/start').set('Authorization', auth);
    const started = await start();
    expect(started.status).toBe(200);
    const link = started.body.handoff_url as string;
    const browser = new HandoffBrowser(h.env.MEDIA_PUBLIC_BASE_URL!);

    const page = await waitFor(
      async () => {
        const res = await browser.request(link);
        return res.status === 410 ? res : undefined;
      },
      { what: 'the link to expire', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(await page.text()).toContain('<h1>This link has expired</h1>');
    const continued = await browser.request(link, {
      method: 'POST',
      form: { confirm: 'x' },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(continued.status).toBe(410);
    expect(continued.headers.get('location')).toBeNull();
    expect(await continued.text()).toContain('<h1>This link has expired</h1>');

    expect((await start()).status).toBe(200);
  });
});
