import { Type, type Static } from '@sinclair/typebox';
import { COMMON_SECRET_URLS, commonConfigSchema, freePlanConfigSchema, loadConfig, privateUrlsProblems, productionSecretProblems } from '@svc/config';
import { providerConfigSchema } from '@svc/providers';

const optionalSecret = Type.Optional(Type.String({ minLength: 1 }));

/** Every setting of the accounts service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  ...providerConfigSchema,
  /** The free plan's limit (billing announces every other plan's); the same value as billing's. */
  PLAN_FREE_CONNECTED_ACCOUNTS: freePlanConfigSchema.PLAN_FREE_CONNECTED_ACCOUNTS,
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9101 }),
  /** Public address of the API; OAuth redirect URIs are `{PUBLIC_BASE_URL}/v1/oauth/{provider}/callback`. */
  PUBLIC_BASE_URL: Type.String({ pattern: '^https?://', default: 'http://127.0.0.1:8080' }),
  /** Encryption keys for tokens and client secrets: `k1:<base64 of 32 bytes>,k2:...`. */
  VAULT_KEYS: Type.String({ minLength: 1 }),
  /** Key that encrypts; default the last listed. Older keys keep decrypting until re-encrypted. */
  VAULT_ACTIVE_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  /** HMAC key signing OAuth `state`. */
  OAUTH_STATE_SECRET: Type.String({ minLength: 32 }),
  OAUTH_STATE_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 3600, default: 600 }),
  /** How often expired OAuth flows are deleted (each start adds one; none can complete once expired). */
  OAUTH_FLOW_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 100, default: 10 * 60_000 }),
  /** The service's default OAuth app per network (BYOK apps override per organization). */
  INSTAGRAM_CLIENT_ID: optionalSecret,
  INSTAGRAM_CLIENT_SECRET: optionalSecret,
  FACEBOOK_CLIENT_ID: optionalSecret,
  FACEBOOK_CLIENT_SECRET: optionalSecret,
  X_CLIENT_ID: optionalSecret,
  X_CLIENT_SECRET: optionalSecret,
  LINKEDIN_CLIENT_ID: optionalSecret,
  LINKEDIN_CLIENT_SECRET: optionalSecret,
  TIKTOK_CLIENT_KEY: optionalSecret,
  TIKTOK_CLIENT_SECRET: optionalSecret,
  /** How often the background pass looks for tokens to refresh, and how far ahead of expiry it refreshes. */
  TOKEN_REFRESH_INTERVAL_MS: Type.Integer({ minimum: 100, default: 60_000 }),
  TOKEN_REFRESH_AHEAD_MS: Type.Integer({ minimum: 0, default: 30 * 60_000 }),
  /** An account whose token expires within this window and cannot be refreshed shows `health: expiring`. */
  TOKEN_EXPIRING_WINDOW_MS: Type.Integer({ minimum: 0, default: 7 * 24 * 3600_000 }),
  /** Dev and tests only: lets media downloads reach loopback/private addresses. */
  ALLOW_PRIVATE_URLS: Type.Boolean({ default: false }),
});

export type Config = Static<typeof configSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env, (config) => [
    // Our own secrets; the networks' client secrets are theirs to refuse.
    ...productionSecretProblems(config, ['VAULT_KEYS', 'OAUTH_STATE_SECRET', ...COMMON_SECRET_URLS]),
    ...privateUrlsProblems(config),
  ]);
}
