// createClient: one object with the API's resources as properties (client.posts.create...), all
// going through one typed `call` (call.ts) and one transport (retries, deadlines: transport.ts).
import { createCall, type Call } from './call.ts';
import { accountsResource, oauthAppsResource } from './resources/accounts.ts';
import { analyticsResource, statsOf } from './resources/analytics.ts';
import { apiKeysResource } from './resources/api-keys.ts';
import { billingResource } from './resources/billing.ts';
import { mediaResource } from './resources/media.ts';
import { postsResource, publishResource } from './resources/publishing.ts';
import { queueResource } from './resources/queue.ts';
import { recurrencesResource } from './resources/recurrences.ts';
import { webhooksResource } from './resources/webhooks.ts';
import { retryPolicy, type RetryOptions } from './retry-policy.ts';
import { createTransport, type FetchLike } from './transport.ts';
import { SDK_VERSION } from './version.ts';
import { waitForJobOf } from './wait-for-job.ts';

export interface ClientOptions {
  /** The API's address, e.g. `https://api.example.com` (no `/v1`: paths carry it). */
  baseUrl: string;
  /** An API key (`svc_...`). */
  apiKey?: string;
  /** A dashboard JWT, or a function giving the current one (called before every request, so it may renew it). */
  token?: string | (() => string | Promise<string>);
  /** The fetch to use (default: the global one), e.g. to add a proxy or to record calls. */
  fetch?: FetchLike;
  /** Retry rules (docs/sdk.md, "Retries"), or false to send each request once. */
  retry?: RetryOptions | false;
  /** Deadline of one attempt, headers and body (default 30 s). */
  timeoutMs?: number;
  /** The User-Agent header (default `svc-sdk-js/<version>`; browsers may not send it). */
  userAgent?: string;
}

function credentialOf(options: ClientOptions): () => string | undefined | Promise<string | undefined> {
  if (options.apiKey !== undefined && options.token !== undefined)
    throw new TypeError('Give either apiKey or token, not both.');
  const { apiKey, token } = options;
  if (typeof token === 'function') return token;
  return () => apiKey ?? token;
}

export function createClient(options: ClientOptions) {
  if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl))
    throw new TypeError('baseUrl must be an http(s) URL, e.g. "https://api.example.com".');
  const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
  const transport = createTransport({
    fetch: baseFetch,
    retry: retryPolicy(options.retry),
    timeoutMs: options.timeoutMs ?? 30_000,
  });
  const { call, callWithRawBody } = createCall({
    baseUrl: options.baseUrl,
    transport,
    credential: credentialOf(options),
    userAgent: options.userAgent ?? `svc-sdk-js/${SDK_VERSION}`,
  });
  return {
    /** Any operation of the API by its operationId, typed from the OpenAPI document. */
    call: call as Call,
    publish: publishResource(call),
    posts: postsResource(call),
    queue: queueResource(call),
    recurrences: recurrencesResource(call),
    accounts: accountsResource(call),
    oauthApps: oauthAppsResource(call),
    media: mediaResource(call, callWithRawBody),
    webhooks: webhooksResource(call),
    analytics: analyticsResource(call),
    apiKeys: apiKeysResource(call),
    billing: billingResource(call),
    stats: statsOf(call),
    waitForJob: waitForJobOf(call),
  };
}

export type SvcClient = ReturnType<typeof createClient>;
