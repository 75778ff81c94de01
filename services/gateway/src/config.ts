import { Type, type Static } from '@sinclair/typebox';
import { COMMON_SECRET_URLS, commonConfigSchema, loadConfig, privateUrlsProblems, productionSecretProblems } from '@svc/config';
import { mediaConfigSchema } from '@svc/media';

/** Every setting of the gateway; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  /** Liveness, readiness and /metrics for operators, kept off the public API port. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9100 }),
  /** Public address of this API, used in the OpenAPI document and OAuth redirect URIs. */
  PUBLIC_BASE_URL: Type.String({ pattern: '^https?://', default: 'http://127.0.0.1:8080' }),
  /** Where the OAuth callback sends the browser (with ?account_id= or ?error=); unset: the callback answers JSON. */
  OAUTH_SUCCESS_REDIRECT: Type.Optional(Type.String({ pattern: '^https?://' })),
  REDIS_URL: Type.String({ pattern: '^rediss?://', default: 'redis://127.0.0.1:6379' }),
  JWT_ALGORITHM: Type.Union([Type.Literal('HS256'), Type.Literal('RS256'), Type.Literal('ES256')], { default: 'HS256' }),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  JWT_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  JWT_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  JWT_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  /** HMAC key for stored API key hashes; a leaked database alone cannot be used to test keys. */
  API_KEY_PEPPER: Type.String({ minLength: 32 }),
  RATE_LIMIT_PER_KEY: Type.Integer({ minimum: 1, default: 1200 }),
  RATE_LIMIT_PER_ORG: Type.Integer({ minimum: 1, default: 3000 }),
  /** Per client address, for requests without a valid credential (failed auth, anonymous endpoints). */
  RATE_LIMIT_PER_ADDRESS: Type.Integer({ minimum: 1, default: 300 }),
  /**
   * Stripe webhook deliveries per client address and window, a bucket of its own: Stripe sends from a
   * dozen addresses, in bursts when many subscriptions change at once.
   */
  RATE_LIMIT_STRIPE_WEBHOOK_PER_ADDRESS: Type.Integer({ minimum: 1, default: 600 }),
  /** OAuth callbacks per client address and window, a bucket of its own (one per account connect). */
  RATE_LIMIT_OAUTH_CALLBACK_PER_ADDRESS: Type.Integer({ minimum: 1, default: 60 }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 60 }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  /**
   * Proxies in front of the gateway that append to X-Forwarded-For (0: none, clients connect directly).
   * The client's address, which anonymous rate limits count by, is the entry this many hops from the
   * right; behind an ingress left at 0, every client is the ingress's address.
   */
  TRUST_PROXY_HOPS: Type.Integer({ minimum: 0, default: 0 }),
  /** Media library: storage, limits and public URLs (shared with the publisher, see libs/media). */
  ...mediaConfigSchema,
  /** Dev and tests only: lets media imports and verifications reach loopback/private addresses. */
  ALLOW_PRIVATE_URLS: Type.Boolean({ default: false }),
  /**
   * Public media (`GET /media/{file}`), per client address and RATE_LIMIT_WINDOW_SECONDS, counted in
   * Redis across replicas: requests, and of those the misses (each one a storage lookup that found
   * nothing, e.g. guessed ids).
   */
  MEDIA_PUBLIC_RATE_PER_ADDRESS: Type.Integer({ minimum: 1, default: 1200 }),
  MEDIA_PUBLIC_MISSES_PER_ADDRESS: Type.Integer({ minimum: 1, default: 60 }),
  /**
   * Public media bodies one gateway process streams at once, in all and to one client address. The
   * networks' crawlers fetch a post's files in bursts from a few addresses (a carousel is 10 files),
   * and a 429 fails the post on the network: keep these well above such a burst.
   */
  MEDIA_PUBLIC_STREAMS: Type.Integer({ minimum: 1, default: 128 }),
  MEDIA_PUBLIC_STREAMS_PER_ADDRESS: Type.Integer({ minimum: 1, default: 16 }),
  /** How long caches may keep a public media file: a deleted file stops being served within this. */
  MEDIA_PUBLIC_MAX_AGE_SECONDS: Type.Integer({ minimum: 0, default: 300 }),
});

export type GatewayConfig = Static<typeof configSchema>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(configSchema, env, (config) => {
    const problems = [
      ...productionSecretProblems(config, ['JWT_SECRET', 'API_KEY_PEPPER', 'MEDIA_S3_ACCESS_KEY_ID', 'MEDIA_S3_SECRET_ACCESS_KEY', 'REDIS_URL', ...COMMON_SECRET_URLS]),
      ...privateUrlsProblems(config),
    ];
    if (config.JWT_ALGORITHM === 'HS256' && config.JWT_SECRET === undefined) problems.push('JWT_SECRET is required when JWT_ALGORITHM is HS256');
    if (config.JWT_ALGORITHM !== 'HS256' && config.JWT_JWKS_URL === undefined) problems.push(`JWT_JWKS_URL is required when JWT_ALGORITHM is ${config.JWT_ALGORITHM}`);
    return problems;
  });
}
