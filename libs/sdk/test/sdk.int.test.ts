// The SDK against the real system: every namespace, typed errors, pagination over several pages,
// waitForJob to a final status, the generic call, and the document the gateway serves.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  isLegacyWebhookEvent,
  openApiDocument,
  SvcApiError,
  SvcWebhookVerificationError,
  verifyWebhook,
  type Paginated,
} from '@svc/sdk';
import { uploadFile } from '@svc/sdk/node';
import { startReceiver, type Receiver } from '../../../test/webhooks/receiver.ts';
import { connectAccount, inOneDay, startSdkSystem, type SdkSystem } from './support/sdk-system.ts';

let sdk: SdkSystem;
let receiver: Receiver;
let accountId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  sdk = await startSdkSystem(['accounts', 'publisher', 'scheduler', 'analytics-sync', 'webhook-dispatcher']);
  accountId = await connectAccount(sdk, 'x');
}, 90_000);

afterAll(async () => {
  await receiver?.close();
  await sdk?.system.close();
}, 120_000);

async function all<T>(list: Paginated<T, unknown>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of list) items.push(item);
  return items;
}

const JPEG = path.resolve(__dirname, '../../providers/test/support/fixtures/image.jpg');

describe('@svc/sdk against the system', () => {
  it('serves through call() exactly the document the SDK was generated from (apart from servers)', async () => {
    const served = (await sdk.client.call('getOpenApi')) as Record<string, unknown>;
    expect({ ...served, servers: [] }).toEqual({ ...openApiDocument, servers: [] });
  });

  it('publishes, lists, reads and waits for a job to reach a final status', async () => {
    const job = await sdk.client.publish.create({ account_ids: [accountId], text: `sdk job ${Date.now()}` });
    expect(job.status).toBe('queued');
    const settled = await sdk.client.waitForJob(job.job_id, { timeoutMs: 20_000, intervalMs: 50 });
    expect(settled.status).toBe('published');
    expect(settled.results.map((result) => result.status)).toEqual(['published']);
    const history = await sdk.client.publish.list({ status: 'published' }).page();
    expect(history.items.map((item) => item.job_id)).toContain(job.job_id);
    expect((await sdk.client.posts.get(job.job_id)).id).toBe(job.job_id);
  });

  it('creates and cancels scheduled posts and jobs', async () => {
    const post = await sdk.client.posts.create({ account_ids: [accountId], text: 'later', scheduled_at: inOneDay() });
    expect(post.status).toBe('scheduled');
    expect((await sdk.client.posts.cancel(post.id)).status).toBe('canceled');
    const job = await sdk.client.publish.create({ account_ids: [accountId], text: 'later', scheduled_at: inOneDay() });
    expect((await sdk.client.publish.cancel(job.job_id)).status).toBe('canceled');
  });

  it('iterates every item of a list across pages (25 posts, pages of 10)', async () => {
    const text = `paged ${Date.now()}`;
    const created = new Set<string>();
    for (let index = 0; index < 25; index += 1) {
      const post = await sdk.client.posts.create({ account_ids: [accountId], text, scheduled_at: inOneDay() });
      created.add(post.id);
    }
    const pages: number[] = [];
    for await (const page of sdk.client.posts.list({ q: text, limit: 10 }).pages()) pages.push(page.items.length);
    expect(pages).toEqual([10, 10, 5]);
    const seen = await all(sdk.client.posts.list({ q: text, limit: 10 }));
    expect(seen).toHaveLength(25);
    expect(new Set(seen.map((post) => post.id))).toEqual(created);
    const first = await sdk.client.posts.list({ q: text, limit: 10 }).page();
    expect(first.total).toBe(25);
    const second = await sdk.client.posts.list({ q: text, limit: 10, cursor: first.next_cursor! }).page();
    expect(second.items[0]!.id).not.toBe(first.items[0]!.id);
  });

  it('throws SvcApiError with status, code, details and request id for a 400 and a 404', async () => {
    const invalid = await sdk.client.posts.create({ account_ids: [], text: 'x' }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(SvcApiError);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_error' });
    expect((invalid as SvcApiError).details.length).toBeGreaterThan(0);
    expect((invalid as SvcApiError).requestId).toEqual(expect.any(String));
    const missing = await sdk.client.posts.get('post_that_does_not_exist').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SvcApiError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    const forbidden = await sdk.client.stats().catch((error: unknown) => error);
    expect(forbidden).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('manages accounts', async () => {
    const accounts = await all(sdk.client.accounts.list());
    expect(accounts.map((account) => account.id)).toContain(accountId);
    expect((await sdk.client.accounts.list({ provider: 'x' }).page()).total).toBe(1);
    expect(await sdk.client.accounts.refresh(accountId)).toMatchObject({ id: accountId, health: 'active' });
    const { authorize_url } = await sdk.dashboard.accounts.oauthStart('linkedin');
    expect(authorize_url).toContain('/linkedin/');
    const other = await connectAccount(sdk, 'linkedin');
    await sdk.client.accounts.remove(other);
    expect((await all(sdk.client.accounts.list())).map((account) => account.id)).not.toContain(other);
  });

  it('uploads, imports, verifies, lists, reads and deletes media', async () => {
    const progress: number[] = [];
    const uploaded = await sdk.client.media.upload(new Blob([readFileSync(JPEG)]), {
      contentType: 'image/jpeg',
      onProgress: ({ loaded }) => progress.push(loaded),
    });
    expect(uploaded).toMatchObject({ kind: 'image', content_type: 'image/jpeg' });
    expect(progress.at(-1)).toBe(uploaded.size_bytes);
    const fromDisk = await uploadFile(sdk.client, JPEG);
    expect(fromDisk.sha256).toBe(uploaded.sha256);
    const imported = await sdk.client.media.import(sdk.system.media.url('/image.jpg'));
    expect(imported.source_url).toBe(sdk.system.media.url('/image.jpg'));
    const verified = await sdk.client.media.verify({ url: sdk.system.media.url('/image.jpg') });
    expect(verified.reachable).toBe(true);
    const ids = (await all(sdk.client.media.list({ limit: 2 }))).map((media) => media.media_id);
    expect(ids).toEqual(expect.arrayContaining([uploaded.media_id, fromDisk.media_id, imported.media_id]));
    expect((await sdk.client.media.get(uploaded.media_id)).media_id).toBe(uploaded.media_id);
    await sdk.client.media.remove(uploaded.media_id);
    await expect(sdk.client.media.get(uploaded.media_id)).rejects.toMatchObject({ status: 404 });
  });

  it('reads analytics, stats and API keys', async () => {
    const rows = await sdk.client.analytics.list({ limit: 5 }).page();
    expect(rows).toMatchObject({ page: 1, limit: 5 });
    await all(sdk.client.analytics.list({ limit: 100 }));
    const stats = await sdk.dashboard.stats();
    expect(stats.total_networks).toBe(5);
    const created = await sdk.dashboard.apiKeys.create({ name: 'sdk test' });
    expect(created.key).toMatch(/^svc_/);
    expect((await all(sdk.dashboard.apiKeys.list())).map((key) => key.id)).toContain(created.id);
    await sdk.dashboard.apiKeys.revoke(created.id);
    expect((await all(sdk.dashboard.apiKeys.list())).map((key) => key.id)).not.toContain(created.id);
  });

  it("manages webhooks, and verifies the dispatcher's real deliveries in both shapes during a rotation", async () => {
    const webhooks = sdk.dashboard.webhooks;
    const envelope = await webhooks.create({ url: receiver.url('/envelope'), events: ['post.queued'] });
    const legacy = await webhooks.create({
      url: receiver.url('/legacy'),
      events: ['post.published'],
      payload_format: 'legacy',
    });
    const rotated = await webhooks.rotateSecret(envelope.id);
    expect((await all(webhooks.list())).map((endpoint) => endpoint.id)).toEqual(
      expect.arrayContaining([envelope.id, legacy.id]),
    );
    expect(await webhooks.update(envelope.id, { events: ['post.queued', 'post.published'] })).toMatchObject({
      events: ['post.queued', 'post.published'],
    });

    const job = await sdk.client.posts.create({ account_ids: [accountId], text: `webhooks ${Date.now()}` });
    const [queued] = await receiver.waitFor('/envelope', 1);
    const [published] = await receiver.waitFor('/legacy', 1);

    // Two secrets sign during the overlap: the header carries both signatures, and either secret verifies.
    expect(String(queued!.headers['x-svc-signature']).split(',')).toHaveLength(2);
    for (const secrets of [
      [rotated.signing_secret],
      [envelope.signing_secret],
      [legacy.signing_secret, rotated.signing_secret],
    ]) {
      const event = await verifyWebhook(queued!.rawBody, queued!.headers, secrets);
      expect(event).toMatchObject({ type: 'post.queued', data: { id: job.id } });
    }
    const wrong = await verifyWebhook(queued!.rawBody, queued!.headers, legacy.signing_secret).catch(
      (error: unknown) => error,
    );
    expect(wrong).toBeInstanceOf(SvcWebhookVerificationError);
    expect(wrong).toMatchObject({ reason: 'signature_mismatch' });
    const later = Math.floor(Date.now() / 1000) + 3600;
    await expect(
      verifyWebhook(queued!.rawBody, queued!.headers, rotated.signing_secret, { nowSeconds: later }),
    ).rejects.toMatchObject({
      reason: 'stale_timestamp',
    });

    const legacyEvent = await verifyWebhook(published!.rawBody, published!.headers, [legacy.signing_secret]);
    expect(isLegacyWebhookEvent(legacyEvent)).toBe(true);
    expect(legacyEvent).toMatchObject({
      event_type: 'post.published',
      data: { job_id: job.id, account_id: accountId },
    });

    const tested = await webhooks.test(legacy.id);
    expect(tested).toMatchObject({ status_code: 200 });
    const deliveries = await all(webhooks.deliveries(envelope.id));
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    const replayed = await webhooks.replay(envelope.id, deliveries[0]!.id);
    expect(replayed.id).toBe(deliveries[0]!.id);
    await webhooks.remove(legacy.id);
    expect((await all(webhooks.list())).map((endpoint) => endpoint.id)).not.toContain(legacy.id);
  });
});
