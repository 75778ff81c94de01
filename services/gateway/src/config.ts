import { Type, type Static } from '@sinclair/typebox';
import {
  COMMON_SECRET_URLS,
  commonConfigSchema,
  loadConfig,
  privateUrlsProblems,
  productionSecretProblems,
} from '@svc/config';
import { mediaConfigSchema } from '@svc/media';

/** Every setting of the gateway; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  /** Port of the public HTTP API (which also serves `/health` and `/ready`). */
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  /** Address the API port binds to; `0.0.0.0` listens on every interface. */
  HOST: Type.String({ default: '0.0.0.0' }),
  /** Port of the liveness (`/livez`), readiness (`/readyz`) and `/metrics` endpoints for operators, kept off the public API port. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9100 }),
  /** Public address of this API, used in the OpenAPI document and OAuth redirect URIs. */
  PUBLIC_BASE_URL: Type.String({ pattern: '^https?://', default: 'http://127.0.0.1:8080' }),
  /**
   * Where the MCP endpoint's tool calls reach this gateway's REST API: each tool call is an HTTP
   * request to it with the agent's API key, so it meets the same checks as any REST call. Unset:
   * this process itself, at the address and port the MCP request arrived on.
   */
  MCP_API_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Where the OAuth callback sends the browser (with ?account_id= or ?error=); unset: the callback answers JSON. */
  OAUTH_SUCCESS_REDIRECT: Type.Optional(Type.String({ pattern: '^https?://' })),
  /**
   * How long the hand-off link of an OAuth connect (`handoff_url` of `GET /v1/oauth/{provider}/start`)
   * works, in seconds, and never past the flow's own expiry (the accounts service's
   * OAUTH_STATE_TTL_SECONDS). A link works once.
   */
  OAUTH_HANDOFF_TTL_SECONDS: Type.Integer({ minimum: 1, maximum: 600, default: 600 }),
  /**
   * Hand-off links one organization may have outstanding (neither used nor expired) at once; past it
   * `start` answers 429. Bounds what one tenant keeps in Redis (about 1 KB a link).
   */
  OAUTH_HANDOFF_MAX_PER_ORG: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
  /** Redis holding the rate-limit counters and OAuth hand-off links the gateway's replicas share (`rediss://` for TLS). */
  REDIS_URL: Type.String({ pattern: '^rediss?://', default: 'redis://127.0.0.1:6379' }),
  /**
   * Signature algorithm of dashboard JWTs when one key source is set: `HS256` verifies with
   * JWT_SECRET, `RS256` and `ES256` with the keys at JWT_JWKS_URL. When both JWT_SECRET and
   * JWT_JWKS_URL are set, both are accepted, each algorithm bound to its own source: HS256 with the
   * secret, and ES256 with the JWKS (RS256 when this says `RS256`).
   */
  JWT_ALGORITHM: Type.Union([Type.Literal('HS256'), Type.Literal('RS256'), Type.Literal('ES256')], {
    default: 'HS256',
  }),
  /** Key of HS256 dashboard JWTs, at least 32 characters; required when JWT_ALGORITHM is `HS256`. */
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /**
   * JWKS document with the dashboard's public keys (the dashboard service's `/.well-known/jwks.json`);
   * required when JWT_ALGORITHM is `RS256` or `ES256`. Fetched when a token names a key not seen yet,
   * at most every 30 s.
   */
  JWT_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** When set, a JWT whose `iss` claim differs is refused. */
  JWT_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  /** When set, a JWT whose `aud` claim does not name it is refused. */
  JWT_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  /** HMAC key for stored API key hashes; a leaked database alone cannot be used to test keys. */
  API_KEY_PEPPER: Type.String({ minLength: 32 }),
  /**
   * HMAC key of draft review links (`POST /v1/posts/{id}/review-links`). Unset: a key derived from
   * API_KEY_PEPPER (HKDF), so links work without more configuration; set it to revoke every link at once.
   */
  REVIEW_LINK_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** How long a review link stays valid. */
  REVIEW_LINK_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 2_592_000, default: 604_800 }),
  /** Requests per window from one API key (or dashboard user); past it 429 with Retry-After. */
  RATE_LIMIT_PER_KEY: Type.Integer({ minimum: 1, default: 1200 }),
  /** Requests per window from one organization, all its keys and users together. */
  RATE_LIMIT_PER_ORG: Type.Integer({ minimum: 1, default: 3000 }),
  /** Requests per window from one client address without a valid credential (failed authentication, anonymous endpoints). */
  RATE_LIMIT_PER_ADDRESS: Type.Integer({ minimum: 1, default: 300 }),
  /**
   * Stripe webhook deliveries per client address and window, a bucket of its own: Stripe sends from a
   * dozen addresses, in bursts when many subscriptions change at once.
   */
  RATE_LIMIT_STRIPE_WEBHOOK_PER_ADDRESS: Type.Integer({ minimum: 1, default: 600 }),
  /** OAuth callbacks per client address and window, a bucket of its own (one per account connect). */
  RATE_LIMIT_OAUTH_CALLBACK_PER_ADDRESS: Type.Integer({ minimum: 1, default: 60 }),
  /** Length of the rate-limit window in seconds, for the RATE_LIMIT_* limits and the public media ones. */
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 60 }),
  /** Largest request body the gateway parses, in bytes (JSON, or a signed raw body such as a Stripe webhook's); past it 413. Streamed media uploads have the MEDIA_MAX_* limits instead. */
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  /**
   * Largest `POST /v1/posts/bulk` request, in bytes: its JSON body, or the CSV file of an upload;
   * past it 413. A bulk travels to the publisher as one RPC message of about this size, so keep it
   * well below RabbitMQ's `max_message_size` (16 MiB by default since RabbitMQ 4.0).
   */
  BULK_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 8_388_608, default: 4_194_304 }),
  /**
   * How long the gateway waits for the publisher to check and store a bulk (up to 500 posts, each
   * checked like a single create, media URLs read and imported) before answering 503.
   */
  BULK_RPC_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 60_000 }),
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
   * Public media requests (`GET /media/{file}`) per client address and RATE_LIMIT_WINDOW_SECONDS,
   * counted in Redis across replicas; past it 429.
   */
  MEDIA_PUBLIC_RATE_PER_ADDRESS: Type.Integer({ minimum: 1, default: 1200 }),
  /** Public media requests per client address and window whose storage lookup found nothing (e.g. guessed ids); past it the address gets 429 before any further lookup. */
  MEDIA_PUBLIC_MISSES_PER_ADDRESS: Type.Integer({ minimum: 1, default: 60 }),
  /**
   * Public media bodies one gateway process streams at once. The networks' crawlers fetch a post's
   * files in bursts (a carousel is 10 files), and a 429 fails the post there: keep it well above that.
   */
  MEDIA_PUBLIC_STREAMS: Type.Integer({ minimum: 1, default: 128 }),
  /** Public media bodies one gateway process streams at once to one client address; crawlers fetch from a few addresses, so keep it above a post's burst of files. */
  MEDIA_PUBLIC_STREAMS_PER_ADDRESS: Type.Integer({ minimum: 1, default: 16 }),
  /** How long caches may keep a public media file: a deleted file stops being served within this. */
  MEDIA_PUBLIC_MAX_AGE_SECONDS: Type.Integer({ minimum: 0, default: 300 }),
});

export type GatewayConfig = Static<typeof configSchema>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(configSchema, env, (config) => {
    const problems = [
      ...productionSecretProblems(config, [
        'JWT_SECRET',
        'API_KEY_PEPPER',
        'MEDIA_S3_ACCESS_KEY_ID',
        'MEDIA_S3_SECRET_ACCESS_KEY',
        'REDIS_URL',
        ...COMMON_SECRET_URLS,
      ]),
      ...privateUrlsProblems(config),
    ];
    if (config.JWT_ALGORITHM === 'HS256' && config.JWT_SECRET === undefined)
      problems.push('JWT_SECRET is required when JWT_ALGORITHM is HS256');
    if (config.JWT_ALGORITHM !== 'HS256' && config.JWT_JWKS_URL === undefined)
      problems.push(`JWT_JWKS_URL is required when JWT_ALGORITHM is ${config.JWT_ALGORITHM}`);
    return problems;
  });
}
