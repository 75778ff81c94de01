// Retries against the real gateway behind a scripted proxy: a POST whose answer is lost is sent
// again with the same Idempotency-Key and creates one job; a 429 is retried after its Retry-After;
// what must not be repeated is not; deadlines end in SvcNetworkError.
import { createClient, SvcApiError, SvcNetworkError, type SvcClient } from '@svc/sdk';
import { connectAccount, startSdkSystem, type SdkSystem } from './support/sdk-system.ts';
import { startScriptedProxy, type ScriptedProxy } from './support/scripted-proxy.ts';

let sdk: SdkSystem;
let proxy: ScriptedProxy;
let client: SvcClient;
let accountId: string;

const rateLimited = (seconds: string) => ({
  status: 429,
  headers: { 'Retry-After': seconds },
  body: { error: { code: 'rate_limited', message: 'Too many requests.', request_id: 'req_proxy' } },
});

beforeAll(async () => {
  sdk = await startSdkSystem(['accounts', 'publisher']);
  proxy = await startScriptedProxy(sdk.baseUrl);
  client = createClient({ baseUrl: proxy.url, apiKey: sdk.apiKey, retry: { baseDelayMs: 10, maxDelayMs: 50 } });
  accountId = await connectAccount(sdk, 'x');
}, 90_000);

afterEach(() => {
  proxy.script(() => 'forward');
  proxy.requests.length = 0;
});

afterAll(async () => {
  await proxy?.close();
  await sdk?.system.close();
}, 120_000);

describe('retries', () => {
  it('sends a POST whose answer was lost again with the same Idempotency-Key: exactly one job exists', async () => {
    proxy.script((request, index) => (request.method === 'POST' && index === 0 ? 'forward_then_drop' : 'forward'));
    const text = `lost answer ${Date.now()}`;
    const post = await client.posts.create({ account_ids: [accountId], text });
    const posts = proxy.requests.filter((request) => request.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers['idempotency-key']).toEqual(expect.any(String));
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    const jobs = await sdk.client.posts.list({ q: text }).page();
    expect(jobs.total).toBe(1);
    expect(jobs.items[0]!.id).toBe(post.id);
  });

  it('keeps a caller-given Idempotency-Key', async () => {
    const body = { account_ids: [accountId], text: `own key ${Date.now()}` };
    const first = await client.posts.create(body, { idempotencyKey: 'sdk-own-key-1' });
    const again = await client.posts.create(body, { idempotencyKey: 'sdk-own-key-1' });
    expect(again.id).toBe(first.id);
    expect(proxy.requests.map((request) => request.headers['idempotency-key'])).toEqual([
      'sdk-own-key-1',
      'sdk-own-key-1',
    ]);
  });

  it('waits for Retry-After after a 429, then succeeds', async () => {
    proxy.script((_request, index) => (index === 0 ? rateLimited('1') : 'forward'));
    const page = await client.accounts.list().page();
    expect(page.items.map((account) => account.id)).toContain(accountId);
    expect(proxy.requests).toHaveLength(2);
    expect(proxy.requests[1]!.at - proxy.requests[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('waits for RateLimit-Reset when the window is spent and there is no Retry-After', async () => {
    proxy.script((_request, index) =>
      index === 0
        ? {
            status: 429,
            headers: { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1' },
            body: { error: { code: 'rate_limited', message: 'x', request_id: 'r' } },
          }
        : 'forward',
    );
    await client.accounts.list().page();
    expect(proxy.requests).toHaveLength(2);
    expect(proxy.requests[1]!.at - proxy.requests[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('gives up at once when the server asks for a wait past the time budget, with the 429 typed', async () => {
    const impatient = createClient({ baseUrl: proxy.url, apiKey: sdk.apiKey, retry: { maxElapsedMs: 5000 } });
    proxy.script(() => rateLimited('60'));
    const error = await impatient.accounts
      .list()
      .page()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcApiError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', requestId: 'req_proxy' });
    expect((error as SvcApiError).headers.get('retry-after')).toBe('60');
    expect(proxy.requests).toHaveLength(1);
  });

  it('does not retry with retry: false', async () => {
    const once = createClient({ baseUrl: proxy.url, apiKey: sdk.apiKey, retry: false });
    proxy.script(() => rateLimited('1'));
    await expect(once.accounts.list().page()).rejects.toMatchObject({ status: 429 });
    expect(proxy.requests).toHaveLength(1);
  });

  it('retries a 503 on a read, but not on a POST without Idempotency-Key, and never a 500', async () => {
    const unavailable = {
      status: 503,
      body: { error: { code: 'service_unavailable', message: 'x', request_id: 'r' } },
    };
    proxy.script((_request, index) => (index === 0 ? unavailable : 'forward'));
    await client.accounts.list().page();
    expect(proxy.requests).toHaveLength(2);

    proxy.requests.length = 0;
    proxy.script(() => unavailable);
    await expect(client.accounts.refresh(accountId)).rejects.toMatchObject({ status: 503 });
    expect(proxy.requests).toHaveLength(1);

    proxy.requests.length = 0;
    proxy.script(() => ({ status: 500, body: { error: { code: 'internal_error', message: 'x', request_id: 'r' } } }));
    await expect(client.posts.get('anything')).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    expect(proxy.requests).toHaveLength(1);
  });

  it('ends an attempt past timeoutMs with SvcNetworkError (timedOut), retrying reads until the attempts are spent', async () => {
    const hasty = createClient({
      baseUrl: proxy.url,
      apiKey: sdk.apiKey,
      timeoutMs: 200,
      retry: { maxAttempts: 2, baseDelayMs: 10 },
    });
    proxy.script(() => 'hang');
    const error = await hasty.accounts
      .list()
      .page()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcNetworkError);
    expect((error as SvcNetworkError).timedOut).toBe(true);
    expect(proxy.requests).toHaveLength(2);
  });

  it('throws SvcNetworkError when nothing listens', async () => {
    const nowhere = createClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: sdk.apiKey,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const error = await nowhere.accounts
      .list()
      .page()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcNetworkError);
    expect((error as SvcNetworkError).timedOut).toBe(false);
  });
});
