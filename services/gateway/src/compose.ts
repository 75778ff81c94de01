import type { PgDatabase } from '@svc/db';
import type { Logger } from '@svc/logger';
import { decoderFromConfig, ingestSlots, storageFromConfig, type MediaStorage } from '@svc/media';
import type { ServiceRuntime } from '@svc/runtime';
import type { Redis } from 'ioredis';
import { createApp } from './app.ts';
import { Authenticator } from './auth/authenticator.ts';
import { createJwtVerifier } from './auth/jwt-verifier.ts';
import type { GatewayConfig } from './config.ts';
import { ApiKeysRepository } from './data/api-keys.repository.ts';
import { OAuthHandoffStore } from './data/oauth-handoffs.store.ts';
import { OrganizationsRepository } from './data/organizations.repository.ts';
import { ApiKeyService } from './domain/api-keys.ts';
import { OAuthHandoffs } from './domain/oauth-handoffs.ts';
import { createHttpMetrics } from './http/http-metrics.ts';
import type { Route } from './http/route.ts';
import { rpcCaller } from './http/rpc-caller.ts';
import { IdempotencyStore } from './idempotency/idempotency-store.ts';
import { buildOpenApiDocument } from './openapi/build-openapi.ts';
import { operations } from './openapi/operations.ts';
import { PublicMediaLimiter } from './rate-limit/public-media-limiter.ts';
import { RateLimiter } from './rate-limit/rate-limiter.ts';
import { accountRoutes } from './routes/accounts.routes.ts';
import { analyticsRoutes } from './routes/analytics.routes.ts';
import { apiKeyRoutes } from './routes/api-keys.routes.ts';
import { billingRoutes } from './routes/billing.routes.ts';
import { devTokenRoutes, devTokenSettings } from './routes/dev-token.routes.ts';
import { healthRoutes } from './routes/health.routes.ts';
import { mediaRoutes } from './routes/media.routes.ts';
import { oauthHandoffRoutes } from './routes/oauth-handoff.routes.ts';
import { oauthRoutes } from './routes/oauth.routes.ts';
import { postsBulkRoutes } from './routes/posts-bulk.routes.ts';
import { publishingRoutes } from './routes/publishing.routes.ts';
import { queueRoutes } from './routes/queue.routes.ts';
import { draftRoutes } from './routes/drafts.routes.ts';
import { reviewRoutes } from './routes/review.routes.ts';
import { ReviewLinks } from './domain/review-link.ts';
import { recurrenceRoutes } from './routes/recurrence.routes.ts';
import { statsRoutes } from './routes/stats.routes.ts';
import { webhookRoutes } from './routes/webhooks.routes.ts';

export interface GatewayParts {
  config: GatewayConfig;
  runtime: ServiceRuntime<PgDatabase>;
  redis: Redis;
  logger: Logger;
  isDraining: () => boolean;
  /** Tests isolate runs sharing one Redis (rate-limit counters, OAuth hand-off links). */
  rateLimitPrefix?: string;
  extraRoutes?: Route[];
  /** Tests: a media storage other than the configured one. */
  mediaStorage?: MediaStorage;
}

/** Wires the gateway's HTTP app from its parts; main.ts and the system tests share it. */
export function composeGateway(parts: GatewayParts) {
  const { config, runtime, redis, logger } = parts;
  const apiKeys = new ApiKeysRepository(runtime.db);
  const authenticator = new Authenticator({
    verifyJwt: createJwtVerifier({
      algorithm: config.JWT_ALGORITHM,
      secret: config.JWT_SECRET,
      jwksUrl: config.JWT_JWKS_URL,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
    }),
    apiKeys,
    organizations: new OrganizationsRepository(runtime.db),
    pepper: config.API_KEY_PEPPER,
    logger,
  });
  const rpc = rpcCaller(runtime.broker);
  const mediaLimits = {
    maxImageBytes: config.MEDIA_MAX_IMAGE_BYTES,
    maxGifBytes: config.MEDIA_MAX_GIF_BYTES,
    maxVideoBytes: config.MEDIA_MAX_VIDEO_BYTES,
    maxDocumentBytes: config.MEDIA_MAX_DOCUMENT_BYTES,
    maxDocumentPages: config.MEDIA_MAX_DOCUMENT_PAGES,
  };
  const openApiDocument = buildOpenApiDocument(Object.values(operations), config.PUBLIC_BASE_URL);
  const secureCookies = config.PUBLIC_BASE_URL.startsWith('https://');
  const handoffs = new OAuthHandoffs({
    store: new OAuthHandoffStore(redis, {
      maxPerOrg: config.OAUTH_HANDOFF_MAX_PER_ORG,
      ...(parts.rateLimitPrefix === undefined ? {} : { keyPrefix: `${parts.rateLimitPrefix}:oauth-handoff` }),
    }),
    ttlSeconds: config.OAUTH_HANDOFF_TTL_SECONDS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
  });
  return createApp({
    logger,
    authenticator,
    rateLimiter: new RateLimiter(redis, {
      perKey: config.RATE_LIMIT_PER_KEY,
      perOrg: config.RATE_LIMIT_PER_ORG,
      perAddress: config.RATE_LIMIT_PER_ADDRESS,
      perStripeWebhook: config.RATE_LIMIT_STRIPE_WEBHOOK_PER_ADDRESS,
      perOAuthCallback: config.RATE_LIMIT_OAUTH_CALLBACK_PER_ADDRESS,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      ...(parts.rateLimitPrefix === undefined ? {} : { keyPrefix: parts.rateLimitPrefix }),
    }),
    routes: [
      ...healthRoutes(openApiDocument),
      ...devTokenRoutes(devTokenSettings(config)),
      ...apiKeyRoutes(new ApiKeyService(apiKeys, config.API_KEY_PEPPER)),
      ...accountRoutes(rpc, mediaLimits),
      ...oauthRoutes(rpc, { successRedirect: config.OAUTH_SUCCESS_REDIRECT, secureCookies, handoffs }),
      ...oauthHandoffRoutes(handoffs, { secureCookies, successRedirect: config.OAUTH_SUCCESS_REDIRECT }),
      ...publishingRoutes(rpc, new IdempotencyStore(runtime.db)),
      ...queueRoutes(rpc),
      ...draftRoutes(rpc, new IdempotencyStore(runtime.db)),
      ...reviewRoutes(rpc, {
        links: new ReviewLinks({ secret: config.REVIEW_LINK_SECRET, pepper: config.API_KEY_PEPPER }),
        publicBaseUrl: config.PUBLIC_BASE_URL,
        ttlSeconds: config.REVIEW_LINK_TTL_SECONDS,
      }),
      ...recurrenceRoutes(rpc),
      ...postsBulkRoutes(rpc, new IdempotencyStore(runtime.db), {
        limitBytes: config.BULK_BODY_LIMIT_BYTES,
        rpcTimeoutMs: config.BULK_RPC_TIMEOUT_MS,
      }),
      ...statsRoutes(rpc),
      ...analyticsRoutes(rpc),
      ...billingRoutes(rpc),
      ...webhookRoutes(rpc),
      ...mediaRoutes({
        rpc,
        idempotency: new IdempotencyStore(runtime.db),
        ingest: {
          storage: parts.mediaStorage ?? storageFromConfig(config),
          tmpDir: config.MEDIA_TMP_DIR,
          limits: mediaLimits,
          decoder: decoderFromConfig(config),
        },
        fetch: { policy: { allowPrivate: config.ALLOW_PRIVATE_URLS }, deadlineMs: config.MEDIA_IMPORT_DEADLINE_MS },
        slots: ingestSlots(config.MEDIA_INGEST_CONCURRENCY, config.MEDIA_INGEST_ORG_CONCURRENCY),
        verifyHeadBytes: config.MEDIA_VERIFY_HEAD_BYTES,
        publicMedia: {
          limiter: new PublicMediaLimiter(redis, {
            perAddress: config.MEDIA_PUBLIC_RATE_PER_ADDRESS,
            missesPerAddress: config.MEDIA_PUBLIC_MISSES_PER_ADDRESS,
            windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
            streams: config.MEDIA_PUBLIC_STREAMS,
            streamsPerAddress: config.MEDIA_PUBLIC_STREAMS_PER_ADDRESS,
            ...(parts.rateLimitPrefix === undefined ? {} : { keyPrefix: parts.rateLimitPrefix }),
          }),
          maxAgeSeconds: config.MEDIA_PUBLIC_MAX_AGE_SECONDS,
        },
      }),
      ...(parts.extraRoutes ?? []),
    ],
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    largeBodyLimitBytes: config.BULK_BODY_LIMIT_BYTES,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    isReady: () => !parts.isDraining() && runtime.broker.isConnected(),
    validateResponses: config.NODE_ENV !== 'production',
    observe: createHttpMetrics(runtime.metrics.registry),
    mcp: {
      document: openApiDocument,
      apiBaseUrl: config.MCP_API_BASE_URL,
    },
  });
}
