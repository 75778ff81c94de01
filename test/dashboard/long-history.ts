// An organization with a long history, for the dashboard's browser tests: a user signed up through
// the dashboard, an X account connected and one post published through the API, then copies of
// that post written straight into the publisher's database (10,000 posts through the API would
// take minutes and the organization's monthly quota).
import { uniqueName, waitFor } from '@svc/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { testProviders } from '../../libs/providers/test/support/sandbox.ts';
import { dispatchJob } from '../../services/publisher/src/domain/dispatch-job.ts';
import type { PrismaClient as PublisherClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { PASSWORD } from '../../services/dashboard/test/dashboard-harness.ts';
import type { SystemHarness } from '../support/system-harness.ts';

/** A call to the API through the dashboard's /api, as the signed-in user; throws on an error status. */
export type DashboardApi = (method: 'GET' | 'POST', path: string, data?: object) => Promise<Record<string, unknown>>;

/**
 * Signs a new user up with `POST /auth/signup` in `context`, whose cookie jar then holds the session
 * for its pages too (the journey signs up through the form; this is the quick way).
 */
export async function signUpThroughDashboard(
  context: BrowserContext,
  organizationName: string,
): Promise<{ orgId: string; api: DashboardApi }> {
  const signedUp = await context.request.post('/auth/signup', {
    data: { email: `${uniqueName('user')}@example.com`, password: PASSWORD, organization_name: organizationName },
  });
  if (signedUp.status() !== 201) throw new Error(`sign-up answered ${signedUp.status()}: ${await signedUp.text()}`);
  const view = (await signedUp.json()) as { active_org_id: string; csrf_token: string };
  const api: DashboardApi = async (method, path, data) => {
    const response = await context.request.fetch(`/api${path}`, {
      method,
      headers: { 'X-CSRF-Token': view.csrf_token },
      ...(data === undefined ? {} : { data }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (response.status() >= 300)
      throw new Error(`${method} ${path} answered ${response.status()}: ${JSON.stringify(body)}`);
    return body;
  };
  return { orgId: view.active_org_id, api };
}

/** Connects an X account with its own token (the sandbox maps each token to a stable account). */
export async function connectX(system: SystemHarness, api: DashboardApi): Promise<string> {
  const token = `${uniqueName('tok')}-x`;
  const profile = await testProviders(system.sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 }).x.profile.fetch({
    accessToken: token,
  });
  const account = await api('POST', '/v1/accounts', {
    provider: 'x',
    platform_account_id: profile.platformAccountId,
    credentials: { access_token: token },
  });
  return String(account.id);
}

/** Creates a post through the API (published now, or scheduled with `scheduled_at`); its id. */
export async function createPost(
  api: DashboardApi,
  body: { account_ids: string[]; text: string; scheduled_at?: string },
): Promise<string> {
  return String((await api('POST', '/v1/posts', body)).id);
}

/** The text of the `n`th post of the history: 0 is the one published, 1 the newest copy. */
export const historyText = (n: number) => `History post ${String(n).padStart(5, '0')}`;

export function publisherDb(system: SystemHarness): PublisherClient {
  return system.workers.publisher!.runtime.db as unknown as PublisherClient;
}

/**
 * Gives the organization `total` posts: one published through the API, then `total - 1` copies of
 * it in one statement, the job and its delivery each with every column as the publisher wrote it,
 * its times moved back one second per copy (History lists newest first), its text numbered
 * (historyText) and the network's post id made unique. Returns the account the posts went to.
 */
export async function seedHistory(
  system: SystemHarness,
  orgId: string,
  api: DashboardApi,
  total: number,
): Promise<{ accountId: string }> {
  const accountId = await connectX(system, api);
  const first = await createPost(api, { account_ids: [accountId], text: historyText(0) });
  await waitFor(async () => (await api('GET', `/v1/posts/${first}`)).status === 'published', {
    what: 'the first post published',
    timeoutMs: 30_000,
  });
  const copied = await publisherDb(system).$executeRawUnsafe(
    `WITH copies AS (
       SELECT gen_random_uuid() AS id, i, i * interval '1 second' AS back FROM generate_series(1, $3::int) AS i
     ),
     jobs_in AS (
       INSERT INTO jobs (id, org_id, status, text, media_urls, media_ids, options, account_ids, providers, scheduled_at,
                         request_id, queued_at, started_at, finished_at, canceled_at, finished_deliveries,
                         published_deliveries, created_at, updated_at)
       SELECT c.id, j.org_id, j.status, 'History post ' || lpad(c.i::text, 5, '0'), j.media_urls, j.media_ids,
              j.options, j.account_ids, j.providers, j.scheduled_at - c.back, j.request_id, j.queued_at - c.back,
              j.started_at - c.back, j.finished_at - c.back, j.canceled_at - c.back, j.finished_deliveries,
              j.published_deliveries, j.created_at - c.back, j.updated_at - c.back
         FROM copies c CROSS JOIN jobs j
        WHERE j.id = $1::uuid AND j.org_id = $2
     )
     INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, attempts, platform_post_id,
                             platform_post_url, error_code, error_message, attempt_started_at, attempt_handle,
                             quota_deferrals, published_at, finished_at, created_at, updated_at)
     SELECT gen_random_uuid(), c.id, d.org_id, d.account_id, d.provider, d.position, d.status, d.attempts,
            d.platform_post_id || c.i, replace(d.platform_post_url, d.platform_post_id, d.platform_post_id || c.i),
            d.error_code, d.error_message, d.attempt_started_at - c.back, d.attempt_handle, d.quota_deferrals,
            d.published_at - c.back, d.finished_at - c.back, d.created_at - c.back, d.updated_at - c.back
       FROM copies c CROSS JOIN deliveries d
      WHERE d.job_id = $1::uuid AND d.org_id = $2`,
    first,
    orgId,
    total - 1,
  );
  if (copied !== total - 1) throw new Error(`${copied} posts copied, not ${total - 1}`);
  return { accountId };
}

/**
 * What a page asks of one API path (`GET` requests, as URLs) and the JSON it receives in all, in
 * bytes (every JSON answer of any path, read once all have arrived).
 */
export function recordTraffic(page: Page, pathname: string): { lists: URL[]; jsonBytes: () => Promise<number> } {
  const lists: URL[] = [];
  const sizes: Promise<number>[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname === pathname) lists.push(url);
  });
  page.on('response', (response) => {
    if ((response.headers()['content-type'] ?? '').includes('application/json'))
      // An answer cut short (the page left) has no body to count.
      sizes.push(
        response.body().then(
          (body) => body.length,
          () => 0,
        ),
      );
  });
  return { lists, jsonBytes: async () => (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0) };
}

/** The scheduled post's time comes: the publisher dispatches it, as on the scheduler's command. */
export async function dispatchNow(system: SystemHarness, postId: string): Promise<boolean> {
  const runtime = system.workers.publisher!.runtime;
  return dispatchJob({ db: publisherDb(system), wake: () => runtime.relay.wake() }, postId);
}

/** Moves the calendar's week view to next week when `iso` falls there (weeks start on Monday). */
export async function showWeekOf(page: Page, iso: string): Promise<void> {
  const nextWeek = await page.evaluate(
    (at) => new Date(at).getDay() === 1 && new Date(at).toDateString() !== new Date().toDateString(),
    iso,
  );
  if (nextWeek) await page.getByRole('button', { name: 'Next' }).click();
}
