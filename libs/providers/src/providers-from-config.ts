import { type Logger } from '@svc/logger';
import { type AdapterDeps } from './adapter-deps.ts';
import { type ProviderConfig } from './config.ts';
import { classifyFacebook } from './facebook/facebook.classify.ts';
import { createFacebookAdapter } from './facebook/facebook.adapter.ts';
import { createMediaFetcher, type MediaFetcher } from './http/media-fetcher.ts';
import { type Classifier } from './http/network-client.ts';
import { networkClientFromConfig } from './http/network-client-from-config.ts';
import { type PollingOptions } from './http/poll.ts';
import { classifyLinkedIn } from './linkedin/linkedin.classify.ts';
import { createLinkedInAdapter } from './linkedin/linkedin.adapter.ts';
import { classifyInstagram } from './instagram/instagram.classify.ts';
import { createInstagramAdapter } from './instagram/instagram.adapter.ts';
import { classifyTikTok } from './tiktok/tiktok.classify.ts';
import { createTikTokAdapter } from './tiktok/tiktok.adapter.ts';
import { tiktokVerifiedPrefixes } from './tiktok/verified-prefixes.ts';
import { type Network, type ProviderAdapter } from './types.ts';
import { classifyX } from './x/x.classify.ts';
import { createXAdapter } from './x/x.adapter.ts';

export type Providers = Readonly<Record<Network, ProviderAdapter>>;

export interface ProvidersOptions {
  logger?: Logger;
  /** MEDIA_PUBLIC_BASE_URL of the service that publishes: TikTok may pull from it (tiktok/verified-prefixes.ts). */
  mediaPublicBaseUrl?: string;
  /** Replaces the default media downloader (X, LinkedIn), e.g. with a service's SSRF-guarded one. */
  fetchMedia?: MediaFetcher;
  /** Dev and tests: lets the default downloader reach loopback/private addresses. */
  allowPrivateUrls?: boolean;
  /** Overrides polling (tests use tiny delays and an instant sleep). */
  polling?: Partial<PollingOptions>;
  now?: () => number;
}

/** Builds every adapter, each with its own axios client and circuit breaker. */
export function providersFromConfig(config: ProviderConfig, options: ProvidersOptions = {}): Providers {
  const now = options.now ?? Date.now;
  const polling: PollingOptions = {
    initialDelayMs: config.PROVIDER_POLL_INITIAL_MS,
    maxDelayMs: config.PROVIDER_POLL_MAX_MS,
    maxAttempts: config.PROVIDER_POLL_MAX_ATTEMPTS,
    ...options.polling,
  };
  const fetchMedia =
    options.fetchMedia ??
    createMediaFetcher({
      deadlineMs: config.PROVIDER_MEDIA_DEADLINE_MS,
      maxBytes: config.PROVIDER_MEDIA_MAX_BYTES,
      allowPrivateUrls: options.allowPrivateUrls ?? false,
    });
  const deps = (network: Network, baseURL: string, classify: Classifier): AdapterDeps => ({
    client: networkClientFromConfig(config, { network, baseURL, classify }, { logger: options.logger, now }),
    polling,
    handoffPolling:
      config.PROVIDER_HANDOFF_POLL_MAX_ATTEMPTS === undefined
        ? polling
        : { ...polling, maxAttempts: config.PROVIDER_HANDOFF_POLL_MAX_ATTEMPTS },
    fetchMedia,
    upload: {
      baseTimeoutMs: config.PROVIDER_TIMEOUT_MS,
      minBytesPerSecond: config.PROVIDER_UPLOAD_MIN_BYTES_PER_SEC,
      stepAttempts: config.PROVIDER_UPLOAD_STEP_ATTEMPTS,
    },
    now,
  });
  const graph = { graphVersion: config.GRAPH_API_VERSION, authBaseUrl: config.FACEBOOK_AUTH_URL };
  return {
    instagram: createInstagramAdapter({ ...deps('instagram', config.GRAPH_API_URL, classifyInstagram), ...graph }),
    facebook: createFacebookAdapter({ ...deps('facebook', config.GRAPH_API_URL, classifyFacebook), ...graph }),
    linkedin: createLinkedInAdapter({
      ...deps('linkedin', config.LINKEDIN_API_URL, classifyLinkedIn),
      authBaseUrl: config.LINKEDIN_AUTH_URL,
      version: config.LINKEDIN_VERSION,
    }),
    x: createXAdapter({
      ...deps('x', config.X_API_URL, classifyX),
      authorizeUrl: config.X_AUTHORIZE_URL,
      defaultTextLimit: config.X_TEXT_LIMIT_DEFAULT,
    }),
    tiktok: createTikTokAdapter({
      ...deps('tiktok', config.TIKTOK_API_URL, classifyTikTok),
      authBaseUrl: config.TIKTOK_AUTH_URL,
      verifiedUrlPrefixes: tiktokVerifiedPrefixes(config, options.mediaPublicBaseUrl),
    }),
  };
}
