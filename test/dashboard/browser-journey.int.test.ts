import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { uniqueName, waitFor } from '@svc/testing';
import {
  startDashboard,
  ISSUER,
  PASSWORD,
  type DashboardHarness,
} from '../../services/dashboard/test/dashboard-harness.ts';
import { accessibilityViolations, launchBrowser, step, type TestBrowser } from '../support/browser.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

// The dashboard's pages in a real browser (Debian's chromium) in front of the whole system: the
// journey a new user takes, with every page checked by axe and every response checked for a JWT.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const JWT = /eyJ[A-Za-z0-9_-]+\.eyJ/;

let system: SystemHarness;
let dashboard: DashboardHarness;
let server: Server;
let receiver: Server;
let receiverUrl: string;
let baseUrl: string;
let browser: TestBrowser;
const received: string[] = [];
const violations: Record<string, string[]> = {};
const responses: { url: string; leak: string }[] = [];
let responsesSeen = 0;

/** Records every response the page gets: none may carry a JWT or mention a bearer credential. */
function watchResponses(context: BrowserContext) {
  context.on('response', (response: Response) => {
    void (async () => {
      responsesSeen += 1;
      const headers = JSON.stringify(await response.allHeaders());
      const body = response.status() >= 300 && response.status() < 400 ? '' : await response.text().catch(() => '');
      for (const text of [headers, body]) {
        if (JWT.test(text)) responses.push({ url: response.url(), leak: 'jwt' });
        // The SDK's own code names the header it would send with a token; answers never may.
        if (!new URL(response.url()).pathname.startsWith('/assets/') && /bearer /i.test(text))
          responses.push({ url: response.url(), leak: 'bearer' });
      }
    })();
  });
}

async function checkPage(page: Page, name: string) {
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  violations[name] = await accessibilityViolations(page);
}

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['x-svc-event']));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  system = await startSystem({
    services: ['accounts', 'publisher', 'webhook-dispatcher'],
    env: {
      JWT_JWKS_URL: `${baseUrl}/.well-known/jwks.json`,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: 'svc-api',
      // The network sends the browser back through the dashboard, and the API then to Accounts.
      PUBLIC_BASE_URL: `${baseUrl}/api`,
      OAUTH_SUCCESS_REDIRECT: `${baseUrl}/accounts`,
    },
  });
  dashboard = await startDashboard({
    GATEWAY_URL: system.env.MEDIA_PUBLIC_BASE_URL!,
    DASHBOARD_PUBLIC_URL: baseUrl,
    DASHBOARD_INSECURE_COOKIES: 'true',
  });
  server.on('request', dashboard.app);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await dashboard?.close();
  await system?.close();
}, 90_000);

describe('the dashboard in a browser', () => {
  it('takes a new user from sign-up to a published post, a replayed webhook, a canceled schedule and a revoked key', async () => {
    const owner = await browser.browser.newContext({ baseURL: baseUrl });
    watchResponses(owner);
    const page = await owner.newPage();
    const email = `${uniqueName('owner')}@example.com`;

    await step(page, 'sign-up', async () => {
      await page.goto('/compose');
      await page.waitForURL(/\/signin/);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      violations['sign-in'] = await accessibilityViolations(page);
      await page.getByRole('link', { name: 'Sign up' }).click();
      // Filled once, straight after the click: the sign-up form is on screen as the link is followed
      // and keeps what is typed (the signed-out pages are bundled and switch within the click).
      await page.getByLabel('Email').fill(email);
      await page.locator('input[type=password]').fill(PASSWORD);
      await page.getByLabel('Organization name').fill('Journey Inc');
      expect(await page.getByLabel('Email').inputValue()).toBe(email);
      violations['sign-up'] = await accessibilityViolations(page);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.waitForURL(/\/compose$/);
      await checkPage(page, 'compose');
    });

    await step(page, 'invite', async () => {
      await page.getByRole('link', { name: 'Team' }).click();
      await checkPage(page, 'team');
      await page.getByRole('button', { name: 'Create invite link' }).click();
      const link = await page.getByTestId('secret').textContent();
      const member = await browser.browser.newContext({ baseURL: baseUrl });
      watchResponses(member);
      const memberPage = await member.newPage();
      await memberPage.goto(link!);
      violations['invite'] = await accessibilityViolations(memberPage);
      await memberPage.getByRole('link', { name: 'Sign up' }).click();
      await memberPage.getByLabel('Email').fill(`${uniqueName('member')}@example.com`);
      await memberPage.locator('input[type=password]').fill(PASSWORD);
      await memberPage.getByRole('button', { name: 'Sign up' }).click();
      await memberPage.waitForURL(/\/compose$/);
      await member.close();
      await page.reload();
      await waitFor(async () => (await page.getByRole('row').count()) === 3, {
        what: 'two members listed',
        timeoutMs: 10_000,
      });
    });

    await step(page, 'connect-x', async () => {
      await page.getByRole('link', { name: 'Accounts' }).click();
      await checkPage(page, 'accounts');
      await page.getByRole('button', { name: 'Connect an account' }).click();
      await page.getByRole('menuitem', { name: 'X' }).click();
      await page.waitForURL(/\/accounts\?account_id=/);
      await page.getByText('Account connected.').waitFor();
      await page.getByTestId('account-x').waitFor();
    });

    await step(page, 'webhook', async () => {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await checkPage(page, 'webhooks');
      await page.getByLabel('Endpoint URL').fill(receiverUrl);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      expect(await page.getByTestId('secret').textContent()).toMatch(/^whsec_/);
    });

    const text = `Hello from the browser ${uniqueName('post')}`;
    await step(page, 'compose-and-publish', async () => {
      await page.getByRole('link', { name: 'Compose' }).click();
      await page.getByRole('checkbox', { name: /^X · / }).check();
      await page.getByLabel('Text').fill(text);
      await page
        .getByTestId('counters')
        .getByText(/^X: \d+/)
        .waitFor();
      await page.locator('input[type=file]').setInputFiles({ name: 'pixel.png', mimeType: 'image/png', buffer: PNG });
      await page.getByRole('button', { name: /^Remove media / }).waitFor();
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.getByText('Post sent for publishing').waitFor();
      await page.getByRole('link', { name: 'Follow it in History' }).click();
      await checkPage(page, 'history');
      await page.getByTestId('detail-status').filter({ hasText: 'published' }).waitFor({ timeout: 30_000 });
      await page.getByRole('link', { name: 'View on X' }).waitFor();
      violations['post-details'] = await accessibilityViolations(page);
    });

    await step(page, 'webhook-delivery-and-replay', async () => {
      await page.goto('/webhooks');
      await page.getByRole('button', { name: 'Deliveries' }).click();
      await page.getByTestId('delivery-status').filter({ hasText: 'succeeded' }).first().waitFor({ timeout: 30_000 });
      const before = received.length;
      await page.getByRole('button', { name: 'Replay' }).first().click();
      await page.getByText('Delivery replayed').waitFor();
      await waitFor(() => received.length > before, { what: 'the replayed delivery', timeoutMs: 30_000 });
      expect(received).toContain('post.published');
    });

    await step(page, 'schedule-and-cancel', async () => {
      await page.getByRole('link', { name: 'Compose' }).click();
      await page.getByRole('checkbox', { name: /^X · / }).check();
      await page.getByLabel('Text').fill('Tomorrow, then canceled');
      await page.getByRole('radio', { name: 'Schedule' }).check();
      const tomorrow = new Date(Date.now() + 86_400_000);
      const wall = await page.evaluate((iso) => {
        const d = new Date(iso);
        const pad = (n: number) => String(n).padStart(2, '0');
        return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
      }, tomorrow.toISOString());
      await page.getByLabel(/^Date and time/).fill(wall);
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      await page.getByText('Post scheduled').waitFor();
      await page.getByRole('link', { name: 'Calendar' }).click();
      await checkPage(page, 'calendar');
      // Tomorrow is in next week's row when today is Sunday (weeks start on Monday).
      if (await page.evaluate((iso) => new Date(iso).getDay() === 1, tomorrow.toISOString()))
        await page.getByRole('button', { name: 'Next' }).click();
      await page.getByTestId('calendar-post').first().click();
      await page.getByRole('button', { name: 'Cancel this post' }).click();
      await waitFor(async () => (await page.getByTestId('calendar-post').count()) === 0, {
        what: 'the canceled post gone from the calendar',
        timeoutMs: 10_000,
      });
    });

    await step(page, 'api-key', async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      await checkPage(page, 'api-keys');
      await page.getByLabel('Key name').fill('journey key');
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.getByTestId('secret').textContent()).toMatch(/^svc_/);
      await page.getByRole('button', { name: 'Revoke journey key' }).click();
      await page.getByRole('button', { name: 'Revoke journey key' }).waitFor({ state: 'detached' });
    });

    await step(page, 'other-pages', async () => {
      for (const [link, name] of [
        ['Analytics', 'analytics'],
        ['Usage and billing', 'billing'],
      ] as const) {
        await page.getByRole('link', { name: link }).click();
        await checkPage(page, name);
      }
    });
    await owner.close();

    expect(violations).toEqual(Object.fromEntries(Object.keys(violations).map((name) => [name, []])));
    expect(responsesSeen).toBeGreaterThan(20);
    expect(responses).toEqual([]);
  }, 240_000);
});
