import { Type, type Static } from '@sinclair/typebox';

const url = (defaultValue: string) => Type.String({ pattern: '^https?://', default: defaultValue });

/**
 * Provider settings; services spread this fragment into their own config schema. Defaults are the
 * real production hosts; `scripts/start` points them at the sandbox (`http://127.0.0.1:4010/facebook`...).
 */
export const providerConfigSchema = {
  /** Graph API host for Facebook Pages and Instagram (Facebook Login). */
  GRAPH_API_URL: url('https://graph.facebook.com'),
  /** Graph API version (`vNN.N`) in the path of every Facebook and Instagram call and of the Facebook Login dialog. */
  GRAPH_API_VERSION: Type.String({ pattern: '^v\\d+\\.\\d+$', default: 'v25.0' }),
  /** Host of the Facebook Login dialog (`/{version}/dialog/oauth`). */
  FACEBOOK_AUTH_URL: url('https://www.facebook.com'),
  /** Base URL of X's API, its OAuth token endpoint included. */
  X_API_URL: url('https://api.x.com'),
  /** X's OAuth 2.0 authorization page, where the browser goes to connect an account. */
  X_AUTHORIZE_URL: url('https://x.com/i/oauth2/authorize'),
  /**
   * The text limit of an X account whose profile does not say its subscription tier (the field is
   * missing for some apps and tokens): 280, X's standard limit, unless the deployment knows better.
   */
  X_TEXT_LIMIT_DEFAULT: Type.Integer({ minimum: 1, maximum: 25_000, default: 280 }),
  /** Base URL of LinkedIn's API. */
  LINKEDIN_API_URL: url('https://api.linkedin.com'),
  /** Host of `/oauth/v2/authorization` and `/oauth/v2/accessToken`. */
  LINKEDIN_AUTH_URL: url('https://www.linkedin.com'),
  /**
   * `LinkedIn-Version` header (YYYYMM) of every LinkedIn call. Each monthly version is served for about
   * a year, then every call answers 426 NONEXISTENT_VERSION: bump it at least yearly. 202607 (July
   * 2026) is served until mid-2027.
   */
  LINKEDIN_VERSION: Type.String({ pattern: '^\\d{6}(\\.\\d{2})?$', default: '202607' }),
  /** Base URL of TikTok's Open API, its OAuth token endpoint included. */
  TIKTOK_API_URL: url('https://open.tiktokapis.com'),
  /** Host of `/v2/auth/authorize/`. */
  TIKTOK_AUTH_URL: url('https://www.tiktok.com'),
  /** Timeout of one call to a network, in ms; an upload request gets more time for its bytes (PROVIDER_UPLOAD_MIN_BYTES_PER_SEC). */
  PROVIDER_TIMEOUT_MS: Type.Integer({ minimum: 50, default: 15000 }),
  /** How long a network's open circuit breaker fails calls at once (as transient, no call made) before it lets a trial call through, in ms. */
  PROVIDER_BREAKER_RESET_MS: Type.Integer({ minimum: 10, default: 30000 }),
  /** Calls to a network within the breaker's rolling 10 s window before their failures can open its circuit. */
  PROVIDER_BREAKER_VOLUME_THRESHOLD: Type.Integer({ minimum: 1, default: 10 }),
  /** Percentage of failed calls to a network within the rolling 10 s window that opens its circuit; 4xx answers (429 included) never count as failures. */
  PROVIDER_BREAKER_ERROR_PERCENT: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  /** First wait between status checks of a network's asynchronous job (media processing, a publish), in ms; each next wait doubles, up to PROVIDER_POLL_MAX_MS. */
  PROVIDER_POLL_INITIAL_MS: Type.Integer({ minimum: 0, default: 2000 }),
  /** Longest wait between two status checks of an asynchronous job, in ms, even when the network asks for a longer one. */
  PROVIDER_POLL_MAX_MS: Type.Integer({ minimum: 0, default: 30000 }),
  /** Status checks of a network's asynchronous job before the call gives up waiting for it. */
  PROVIDER_POLL_MAX_ATTEMPTS: Type.Integer({ minimum: 1, default: 15 }),
  /**
   * Polls of a TikTok publish, a Facebook video or an Instagram container inside the publish call,
   * once the network gave the attempt a handle; then the attempt is handed to reconciliation (unset:
   * PROVIDER_POLL_MAX_ATTEMPTS). The publisher sets a small value so no worker sleeps for minutes.
   */
  PROVIDER_HANDOFF_POLL_MAX_ATTEMPTS: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Largest media file downloaded for byte-upload networks (X, LinkedIn); a larger Content-Length is refused before the body. */
  PROVIDER_MEDIA_MAX_BYTES: Type.Integer({ minimum: 1, default: 536870912 }),
  /** Time for a whole media download, body included, so a server dripping bytes cannot hold a delivery. */
  PROVIDER_MEDIA_DEADLINE_MS: Type.Integer({ minimum: 100, default: 120000 }),
  /** Slowest sustained upload rate accepted: an upload request's timeout is PROVIDER_TIMEOUT_MS + its bytes at this rate. */
  PROVIDER_UPLOAD_MIN_BYTES_PER_SEC: Type.Integer({ minimum: 1024, default: 262144 }),
  /** Tries of one upload step (chunk, segment, part) on a timeout or transient failure. */
  PROVIDER_UPLOAD_STEP_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
  /**
   * URL prefixes (or origins) verified with TikTok for PULL_FROM_URL besides the media library's
   * (`MEDIA_PUBLIC_BASE_URL/media/`, counted as verified unless TIKTOK_MEDIA_URL_VERIFIED=false:
   * verify that domain with TikTok, docs/networks.md), comma-separated: media whose public URL lies under one is pulled by TikTok,
   * any other video is sent by FILE_UPLOAD, and a photo post is refused.
   */
  TIKTOK_VERIFIED_URL_PREFIXES: Type.String({ default: '' }),
  /**
   * Whether the media library's address (`MEDIA_PUBLIC_BASE_URL/media/`) is verified with TikTok and
   * counted as such (default true). False until the domain is verified: TikTok photo posts are refused
   * at accept (`url_ownership_unverified`) and videos go by FILE_UPLOAD.
   */
  TIKTOK_MEDIA_URL_VERIFIED: Type.Boolean({ default: true }),
};

/** The fragment as a whole schema, for `loadConfig(providerConfigObjectSchema, env)` in tests and tools. */
export const providerConfigObjectSchema = Type.Object(providerConfigSchema);
export type ProviderConfig = Static<typeof providerConfigObjectSchema>;
