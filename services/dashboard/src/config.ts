import { Type, type Static } from '@sinclair/typebox';
import { COMMON_SECRET_URLS, commonConfigSchema, loadConfig, productionSecretProblems } from '@svc/config';

/** Every setting of the dashboard service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  /** Port of the dashboard's HTTP server: `/auth/*`, `/api/*` (to the gateway) and `/.well-known/jwks.json`. */
  DASHBOARD_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  /** Address the dashboard port binds to; `0.0.0.0` listens on every interface. */
  DASHBOARD_HOST: Type.String({ default: '0.0.0.0' }),
  /** Port of the `/livez`, `/readyz` and `/metrics` endpoints for operators. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9107 }),
  /**
   * Address the browser opens the dashboard at. Invite links point here, and a state-changing
   * request whose `Origin` header names another origin is refused.
   */
  DASHBOARD_PUBLIC_URL: Type.String({ pattern: '^https?://[^/]+$', default: 'http://127.0.0.1:3000' }),
  /** `iss` of the dashboard JWTs; the gateway's JWT_ISSUER must equal it. */
  DASHBOARD_ISSUER: Type.String({ minLength: 1, default: 'http://127.0.0.1:3000' }),
  /** The gateway `/api/*` is forwarded to (protocol, host and port). */
  GATEWAY_URL: Type.String({ pattern: '^https?://[^/]+$', default: 'http://127.0.0.1:8080' }),
  /** Redis holding the sign-in throttling counters the dashboard's replicas share (`rediss://` for TLS). */
  REDIS_URL: Type.String({ pattern: '^rediss?://', default: 'redis://127.0.0.1:6379' }),
  /** Vault keys `id:base64,...` (32 random bytes each) that encrypt the JWT signing keys at rest. */
  VAULT_KEYS: Type.String({ minLength: 1 }),
  /** Key of VAULT_KEYS that encrypts; default the last listed. */
  VAULT_ACTIVE_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Development only: session cookies without `Secure` (and without the `__Host-` prefix), for a
   * browser on plain http://127.0.0.1 or http://localhost. Refused unless NODE_ENV is `development`
   * or `test` and DASHBOARD_PUBLIC_URL is such an address.
   */
  DASHBOARD_INSECURE_COOKIES: Type.Boolean({ default: false }),
  /** How long a session lasts after sign-in, in hours; sign-out ends it earlier. */
  SESSION_TTL_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 168 }),
  /** Failed sign-ins from one client address per LOGIN_THROTTLE_WINDOW_SECONDS; past it 429. */
  LOGIN_FAILURES_PER_ADDRESS: Type.Integer({ minimum: 1, default: 30 }),
  /** Failed sign-ins for one email per window, from any address; past it 429 (a success clears it). */
  LOGIN_FAILURES_PER_ACCOUNT: Type.Integer({ minimum: 1, default: 10 }),
  /** Sign-ups from one client address per window (each costs an argon2id hash); past it 429. */
  SIGNUPS_PER_ADDRESS: Type.Integer({ minimum: 1, default: 20 }),
  /** Length of the sign-in and sign-up throttling window, in seconds. */
  LOGIN_THROTTLE_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 900 }),
  /**
   * Proxies in front of the dashboard that append to X-Forwarded-For (0: none). The client address
   * that sign-in throttling counts by is the entry this many hops from the right.
   */
  TRUST_PROXY_HOPS: Type.Integer({ minimum: 0, default: 0 }),
  /** How long an invite link can be accepted, in hours. */
  INVITE_TTL_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 72 }),
  /** Lifetime of a dashboard JWT, in seconds (at most 15 minutes). */
  JWT_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 900, default: 900 }),
  /** Age after which the signing key is replaced by a new one, in days. */
  SIGNING_KEY_ROTATION_DAYS: Type.Integer({ minimum: 1, default: 30 }),
  /**
   * How long a new signing key is published before it signs, in seconds. A gateway fetches the JWKS
   * again at most every 30 s, so a key signs only once every gateway can have seen it.
   */
  SIGNING_KEY_PUBLISH_AHEAD_SECONDS: Type.Integer({ minimum: 0, default: 120 }),
  /** Largest request body `/api/*` forwards and `/auth/*` parses, in bytes; past it 413. */
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  /** Longest a forwarded `/api/*` request may take, response body included, in ms; past it 504. */
  GATEWAY_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 30_000 }),
  /**
   * Folder of the built pages (`services/dashboard/web/dist`, made by `pnpm build`), served with a
   * fallback to its index.html. Unset: that folder beside this service. Missing: no pages are served.
   */
  DASHBOARD_WEB_DIR: Type.Optional(Type.String({ minLength: 1 })),
  /** Development only: the demo user's password (created on first start); unset, a random one is printed. */
  DEMO_PASSWORD: Type.Optional(Type.String({ minLength: 12 })),
});

export type Config = Static<typeof configSchema>;

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env, (config) => {
    const problems = productionSecretProblems(config, ['VAULT_KEYS', 'REDIS_URL', ...COMMON_SECRET_URLS]);
    if (config.DASHBOARD_INSECURE_COOKIES) {
      if (config.NODE_ENV === 'production')
        problems.push('DASHBOARD_INSECURE_COOKIES is for development only; production cookies are Secure');
      else if (!LOOPBACK.test(config.DASHBOARD_PUBLIC_URL))
        problems.push('DASHBOARD_INSECURE_COOKIES needs DASHBOARD_PUBLIC_URL on http://127.0.0.1 or http://localhost');
    }
    if (config.NODE_ENV === 'production' && !config.DASHBOARD_PUBLIC_URL.startsWith('https://'))
      problems.push('DASHBOARD_PUBLIC_URL must be https in production');
    return problems;
  });
}
