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
import {
  createPost,
  dispatchNow,
  historyText,
  recordTraffic,
  seedHistory,
  showWeekOf,
  signUpThroughDashboard,
  type DashboardApi,
} from './long-history.ts';
import { draftThroughApproval, queueAPost, repeatWeekly } from './planning-steps.ts';

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
  // As under scripts/start: the API on its own address (its PUBLIC_BASE_URL), the dashboard on
  // another, and the flows that leave the dashboard (OAuth connect, Stripe's Checkout) coming back to it.
  system = await startSystem({
    services: ['accounts', 'publisher', 'webhook-dispatcher', 'billing'],
    sandboxStripe: true,
    publicBaseUrlIsGateway: true,
    env: {
      JWT_JWKS_URL: `${baseUrl}/.well-known/jwks.json`,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: 'svc-api',
      OAUTH_SUCCESS_REDIRECT: `${baseUrl}/accounts`,
      BILLING_SUCCESS_URL: `${baseUrl}/billing?checkout=success`,
      BILLING_CANCEL_URL: `${baseUrl}/billing?checkout=canceled`,
      BILLING_PORTAL_RETURN_URL: `${baseUrl}/billing`,
    },
  });
  dashboard = await startDashboard({
    GATEWAY_URL: system.env.MEDIA_PUBLIC_BASE_URL!,
    DASHBOARD_PUBLIC_URL: baseUrl,
    DASHBOARD_INSECURE_COOKIES: 'true',
  });
  server.on('request', dashboard.app);
  browser = await launchBrowser();
}, 240_000);

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
  it('takes a new user from sign-up to a connected account, a published post, a replayed webhook, a canceled schedule, a revoked key and an upgrade', async () => {
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
      // The API's hand-off page, on the API's own origin, names the network and the organization; its
      // Continue gives this browser the flow's cookie there and goes on to the sandbox's consent.
      const gateway = new URL(system.env.MEDIA_PUBLIC_BASE_URL!).origin;
      await page.waitForURL((url) => url.origin === gateway && url.pathname.startsWith('/v1/oauth/handoff/'));
      await page.getByRole('heading', { level: 1, name: 'Connect an X account' }).waitFor();
      await page.getByText(/to organization Journey Inc \(org_/).waitFor();
      violations['oauth-handoff'] = await accessibilityViolations(page);
      await page.getByRole('button', { name: 'Continue to X' }).click();
      await page.waitForURL(
        (url) => url.origin === baseUrl && url.pathname === '/accounts' && url.searchParams.has('account_id'),
      );
      await page.getByText('Account connected.').waitFor();
      await page.getByTestId('account-x').waitFor();
      // No cookie of the API's reaches the dashboard's origin: the dashboard passes none on.
      expect((await owner.cookies(baseUrl)).map((cookie) => cookie.name)).toEqual(['svc_session']);
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
      await page.getByLabel('Text', { exact: true }).fill(text);
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
      await page.getByLabel('Text', { exact: true }).fill('Tomorrow, then canceled');
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

    await step(page, 'draft-approval-publish', () => draftThroughApproval(page, (name) => checkPage(page, name)));
    await step(page, 'queue', () => queueAPost(page, (name) => checkPage(page, name), violations));
    await step(page, 'repeat-weekly', () => repeatWeekly(page, violations));

    await step(page, 'api-key', async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      await checkPage(page, 'api-keys');
      await page.getByLabel('Key name').fill('journey key');
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.getByTestId('secret').textContent()).toMatch(/^svc_/);
      await page.getByRole('button', { name: 'Revoke journey key' }).click();
      await page.getByRole('button', { name: 'Revoke journey key' }).waitFor({ state: 'detached' });
    });

    await step(page, 'analytics', async () => {
      await page.getByRole('link', { name: 'Analytics' }).click();
      await checkPage(page, 'analytics');
    });

    // Usage and billing -> Upgrade -> the sandbox's hosted Checkout -> back on the billing page, once
    // left without paying and once paid; the plan turns Pro when the signed webhook has reached billing.
    await step(page, 'upgrade', async () => {
      const checkoutPage = (url: URL) =>
        url.origin === system.sandbox.baseUrl && url.pathname.startsWith('/stripe/c/pay/');
      const billingReturn = (outcome: string) => (url: URL) =>
        url.origin === baseUrl && url.pathname === '/billing' && url.searchParams.get('checkout') === outcome;
      await page.getByRole('link', { name: 'Usage and billing' }).click();
      await checkPage(page, 'billing');
      await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
      await page.waitForURL(checkoutPage);
      await page.getByRole('link', { name: 'Cancel and return' }).click();
      await page.waitForURL(billingReturn('canceled'));
      await page.getByText('Checkout canceled: nothing was charged and the plan is unchanged.').waitFor();
      violations['billing-canceled'] = await accessibilityViolations(page);

      await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
      await page.waitForURL(checkoutPage);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiration date').fill('12 / 40');
      await page.getByLabel('Security code (CVC)').fill('123');
      await page.getByRole('button', { name: 'Subscribe' }).click();
      await page.waitForURL(billingReturn('success'));
      await page.getByText('Upgrade confirmed: this organization is on the Pro plan.').waitFor({ timeout: 30_000 });
      await page.getByText('Pro', { exact: true }).waitFor();
      await expect(page.getByRole('button', { name: 'Upgrade to Pro' }).count()).resolves.toBe(0);
      violations['billing-upgraded'] = await accessibilityViolations(page);
    });
    await owner.close();

    expect(violations).toEqual(Object.fromEntries(Object.keys(violations).map((name) => [name, []])));
    expect(responsesSeen).toBeGreaterThan(20);
    expect(responses).toEqual([]);
  }, 300_000);
});

// One organization with a long history: 10,000 posts, as the API would have stored them, to show
// that History reads one page at a time; then the API keys' scopes and a refused cancel, in the
// same organization.
describe('the dashboard for an organization with 10,000 posts', () => {
  const HISTORY = 10_000;
  let context: BrowserContext;
  let api: DashboardApi;
  let accountId: string;

  beforeAll(async () => {
    // en-US: the page's numbers are read as it formats them there ("10,000").
    context = await browser.browser.newContext({ baseURL: baseUrl, locale: 'en-US' });
    const user = await signUpThroughDashboard(context, 'Long History Inc');
    api = user.api;
    ({ accountId } = await seedHistory(system, user.orgId, api, HISTORY));
  }, 120_000);

  afterAll(() => context?.close());

  it('pages History one page at a time: never the whole list, and little to download', async () => {
    const page = await context.newPage();
    const { lists, jsonBytes } = recordTraffic(page, '/api/v1/posts');
    const rows = page.getByTestId('history-row');
    /** Waits until the table shows one whole page starting with the post numbered `first`. */
    const showsPage = async (first: number) => {
      await rows
        .first()
        .filter({ hasText: historyText(first) })
        .waitFor();
      expect(await rows.count()).toBe(25);
    };

    await step(page, 'history-first-page', async () => {
      await page.goto('/history');
      await page.getByRole('heading', { level: 2, name: 'History' }).waitFor();
      await showsPage(0);
      await page.getByTestId('history-total').filter({ hasText: '10,000 posts · page 1' }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
    });

    await step(page, 'history-next-pages', async () => {
      for (const pageNumber of [2, 3, 4]) {
        await page.getByRole('button', { name: 'Next page' }).click();
        await showsPage(25 * (pageNumber - 1));
        await page
          .getByTestId('history-total')
          .filter({ hasText: `page ${pageNumber}` })
          .waitFor();
      }
      // Still answering input: a search narrows the 10,000 to the one post it names.
      await page.getByLabel('Search text').fill('00042');
      await rows.filter({ hasText: historyText(42) }).waitFor();
      await waitFor(async () => (await rows.count()) === 1, { what: 'only the post searched for', timeoutMs: 10_000 });
      await page.waitForLoadState('networkidle');
    });

    // The first page, then exactly one request per Next, each for one page after the last one's
    // cursor; the search's own first page last.
    expect(lists).toHaveLength(5);
    const limits = lists.map((url) => Number(url.searchParams.get('limit')));
    expect(Math.min(...limits)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...limits)).toBeLessThanOrEqual(100);
    expect(lists[0]!.searchParams.has('cursor')).toBe(false);
    const cursors = lists.slice(1, 4).map((url) => url.searchParams.get('cursor'));
    expect(cursors.every((cursor) => cursor !== null && cursor !== '')).toBe(true);
    expect(new Set(cursors).size).toBe(3);
    expect(lists[4]!.searchParams.get('q')).toBe('00042');
    expect(lists[4]!.searchParams.has('cursor')).toBe(false);
    const received = await jsonBytes();
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(1_000_000);
    await page.close();
  }, 120_000);

  it('creates API keys with the scope chosen (full unless another is) and lists each with its scope', async () => {
    const page = await context.newPage();
    await step(page, 'api-key-scopes', async () => {
      await page.goto('/api-keys');
      await page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor();
      const full = page.getByRole('radio', { name: 'Full access' });
      const readValidate = page.getByRole('radio', { name: 'Read and validate' });
      expect(await full.isChecked()).toBe(true);

      // Chosen with the keyboard: the scopes are one radio group.
      await page.getByLabel('Key name').fill('reader');
      await full.focus();
      await page.keyboard.press('ArrowDown');
      expect(await readValidate.isChecked()).toBe(true);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('status').filter({ hasText: 'Scope: Read and validate' }).waitFor();
      expect(await page.getByTestId('secret').textContent()).toMatch(/^svc_/);
      // The form is back to the default for the next key.
      expect(await full.isChecked()).toBe(true);

      await page.getByLabel('Key name').fill('writer');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('status').filter({ hasText: 'Key "writer" created' }).waitFor();

      const scopeOf = (name: string) =>
        page.getByTestId('api-key-row').filter({ hasText: name }).getByTestId('api-key-scope');
      await scopeOf('reader').filter({ hasText: 'Read and validate' }).waitFor();
      await scopeOf('writer').filter({ hasText: 'Full access' }).waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
    });
    await page.close();
  }, 60_000);

  it('explains, next to the post, a cancel refused because the post was queued meanwhile', async () => {
    const page = await context.newPage();
    const scheduledAt = new Date(Date.now() + 15 * 60_000).toISOString();
    const text = 'Queued before it is canceled';
    const post = await createPost(api, { account_ids: [accountId], text, scheduled_at: scheduledAt });
    await step(page, 'calendar-cancel-refused', async () => {
      await page.goto('/calendar');
      await page.getByRole('heading', { level: 2, name: 'Calendar' }).waitFor();
      // In 15 minutes may be tomorrow, in next week's row on a Sunday night.
      await showWeekOf(page, scheduledAt);
      await page.getByTestId('calendar-post').filter({ hasText: text }).click();
      const dialog = page.getByRole('dialog', { name: 'Scheduled post' });
      await dialog.getByRole('button', { name: 'Cancel this post' }).waitFor();

      // Its time comes while the dialog is open.
      expect(await dispatchNow(system, post)).toBe(true);

      await dialog.getByRole('button', { name: 'Cancel this post' }).click();
      const refused = dialog.getByTestId('cancel-refused');
      await refused
        .filter({ hasText: 'This post is already being published and can no longer be canceled.' })
        .waitFor();
      expect(await refused.textContent()).not.toMatch(/409|conflict|job/i);
      expect(await dialog.getByRole('button', { name: 'Cancel this post' }).count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);

      await dialog.getByRole('link', { name: 'Follow it in History' }).click();
      await page.waitForURL(new RegExp(`/history\\?post=${post}$`));
      await page.getByRole('dialog', { name: 'Post details' }).getByText(text).waitFor();
    });
    await page.close();
  }, 60_000);
});
