import { Type, type Static } from '@sinclair/typebox';
import { commonConfigSchema, loadConfig, productionSecretProblems } from '@svc/config';
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
  /** Per client address, for requests without a valid credential (OAuth callback, failed auth). */
  RATE_LIMIT_PER_ADDRESS: Type.Integer({ minimum: 1, default: 300 }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 60 }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  /** Number of proxies in front of the gateway whose X-Forwarded-For is trusted (0: none). */
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
    const problems = productionSecretProblems(config, ['JWT_SECRET', 'API_KEY_PEPPER']);
    if (config.JWT_ALGORITHM === 'HS256' && config.JWT_SECRET === undefined) problems.push('JWT_SECRET is required when JWT_ALGORITHM is HS256');
    if (config.JWT_ALGORITHM !== 'HS256' && config.JWT_JWKS_URL === undefined) problems.push(`JWT_JWKS_URL is required when JWT_ALGORITHM is ${config.JWT_ALGORITHM}`);
    return problems;
  });
}
