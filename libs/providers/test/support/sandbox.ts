import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { createSandboxApp } from '../../../../services/sandbox/src/app.ts';
import { type SandboxOptions } from '../../../../services/sandbox/src/context.ts';
import { providersFromConfig, type ProviderConfig, type Providers, type ProvidersOptions } from '../../src/index.ts';

export interface RunningSandbox {
  baseUrl: string;
  close: () => Promise<void>;
  reset: () => Promise<void>;
  fault: (network: string, fault: string, count?: number, retryAfterSeconds?: number) => Promise<void>;
  /**
   * `lost_response` / `slow_response` (docs/api-conventions.md, "Sandbox faults") on the next `count` calls
   * that create a post.
   */
  outcomeFault: (
    network: string,
    fault: 'lost_response' | 'slow_response',
    count?: number,
    delaySeconds?: number,
  ) => Promise<void>;
  /**
   * A fault for one kind of call only (docs/api-conventions.md, "Sandbox faults"): `reply` (X posts
   * answering another), `comment` (Graph, LinkedIn) or `lookup` (X's timeline read), after `after`
   * such calls have passed.
   */
  scopedFault: (
    network: string,
    fault: string,
    scope: { on: 'reply' | 'comment' | 'lookup'; after?: number; count?: number; seconds?: number },
  ) => Promise<void>;
  /** The comments the sandbox holds for a network, oldest first. */
  comments: (network: string) => Promise<{ id: string; post_id: string; account: string; text: string }[]>;
  setMetrics: (network: string, postId: string, metrics: Record<string, unknown>) => Promise<void>;
  /** Every later call that creates a post on `network` answers `ms` late (0 removes it). */
  createLatency: (network: string, ms: number) => Promise<void>;
  posts: (network: string) => Promise<
    {
      id: string;
      account: string;
      text: string;
      media: { url: string; kind: string; alt_text?: string }[];
      options: Record<string, unknown>;
      url: string;
    }[]
  >;
  pendingFaults: () => Promise<unknown[]>;
}

/**
 * The sandbox in-process on an ephemeral port; `timeout` faults hang 3 s (adapters time out sooner).
 * `stripe` turns its Stripe on (off by default, as in development without the settings).
 */
export async function startSandbox(
  options: Pick<SandboxOptions, 'igQuotaTotal' | 'tiktokVerifiedPrefixes' | 'processingPolls' | 'stripe'> = {},
): Promise<RunningSandbox> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = createSandboxApp({
    publicUrl: baseUrl,
    allowPrivateUrls: true,
    timeoutFaultMs: 3000,
    processingPolls: 1,
    ...options,
  });
  server.on('request', app);
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/__sandbox${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`control ${path} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? undefined : ((await response.json()) as Record<string, unknown>);
  };
  return {
    baseUrl,
    close: async () => {
      // Pending Stripe webhook redeliveries must not fire after the test that caused them.
      if (options.stripe !== undefined) await control('POST', '/stripe/reset');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    reset: async () => void (await control('POST', '/reset')),
    fault: async (network, fault, count = 1, retryAfterSeconds) =>
      void (await control('POST', '/faults', {
        network,
        fault,
        count,
        ...(retryAfterSeconds === undefined ? {} : { retry_after_seconds: retryAfterSeconds }),
      })),
    outcomeFault: async (network, fault, count = 1, delaySeconds) =>
      void (await control('POST', '/faults', {
        network,
        fault,
        count,
        ...(delaySeconds === undefined ? {} : { delay_seconds: delaySeconds }),
      })),
    scopedFault: async (network, fault, { on, after = 0, count = 1, seconds }) =>
      void (await control('POST', '/faults', {
        network,
        fault,
        on,
        after,
        count,
        ...(seconds === undefined
          ? {}
          : fault === 'lost_response' || fault === 'slow_response'
            ? { delay_seconds: seconds }
            : { retry_after_seconds: seconds }),
      })),
    comments: async (network) =>
      ((await control('GET', `/comments?network=${network}`)) as { comments: never[] }).comments,
    setMetrics: async (network, postId, metrics) =>
      void (await control('POST', '/metrics', { network, post_id: postId, metrics })),
    createLatency: async (network, ms) => void (await control('PUT', '/latency', { network, create_ms: ms })),
    posts: async (network) => ((await control('GET', `/posts?network=${network}`)) as { posts: never[] }).posts,
    pendingFaults: async () => ((await control('GET', '/faults')) as { pending: unknown[] }).pending,
  };
}

export function sandboxConfig(baseUrl: string, overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    GRAPH_API_URL: `${baseUrl}/facebook`,
    GRAPH_API_VERSION: 'v25.0',
    FACEBOOK_AUTH_URL: `${baseUrl}/facebook`,
    X_API_URL: `${baseUrl}/x`,
    X_AUTHORIZE_URL: `${baseUrl}/x/i/oauth2/authorize`,
    X_TEXT_LIMIT_DEFAULT: 280,
    LINKEDIN_API_URL: `${baseUrl}/linkedin`,
    LINKEDIN_AUTH_URL: `${baseUrl}/linkedin`,
    // The current month: LinkedIn (and the sandbox) refuse versions older than about a year.
    LINKEDIN_VERSION: new Date().toISOString().slice(0, 7).replace('-', ''),
    TIKTOK_API_URL: `${baseUrl}/tiktok`,
    TIKTOK_AUTH_URL: `${baseUrl}/tiktok`,
    // Above what a loaded 2-core CI machine needs for a local call; timeout faults hang 3 s.
    PROVIDER_TIMEOUT_MS: 2000,
    PROVIDER_BREAKER_RESET_MS: 300,
    PROVIDER_BREAKER_VOLUME_THRESHOLD: 1000,
    PROVIDER_BREAKER_ERROR_PERCENT: 50,
    PROVIDER_POLL_INITIAL_MS: 5,
    PROVIDER_POLL_MAX_MS: 20,
    PROVIDER_POLL_MAX_ATTEMPTS: 20,
    PROVIDER_MEDIA_MAX_BYTES: 10 * 1024 * 1024,
    PROVIDER_MEDIA_DEADLINE_MS: 10_000,
    PROVIDER_UPLOAD_MIN_BYTES_PER_SEC: 1024 * 1024,
    PROVIDER_UPLOAD_STEP_ATTEMPTS: 2,
    TIKTOK_VERIFIED_URL_PREFIXES: '',
    TIKTOK_MEDIA_URL_VERIFIED: true,
    ...overrides,
  };
}

export function testProviders(
  baseUrl: string,
  overrides: Partial<ProviderConfig> = {},
  options: ProvidersOptions = {},
): Providers {
  return providersFromConfig(sandboxConfig(baseUrl, overrides), { allowPrivateUrls: true, ...options });
}

/** Follows the auto-consent redirect of an authorize URL and returns the `code` and `state`. */
export async function consent(authorizeUrl: string): Promise<{ code: string; state: string | null }> {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`authorize answered ${response.status}`);
  const target = new URL(location);
  const code = target.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return { code, state: target.searchParams.get('state') };
}

/** Runs `fn`, expecting a ProviderError; returns it for assertions. */
export async function failure(fn: () => Promise<unknown>): Promise<{
  kind: string;
  retryAfterMs?: number | undefined;
  networkCode?: string | undefined;
  networkMessage: string;
  status?: number | undefined;
  network: string;
}> {
  try {
    await fn();
  } catch (error) {
    return error as never;
  }
  throw new Error('expected a ProviderError, but the call succeeded');
}
