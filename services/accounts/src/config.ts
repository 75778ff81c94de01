import { Type, type Static } from '@sinclair/typebox';
import {
  COMMON_SECRET_URLS,
  commonConfigSchema,
  freePlanConfigSchema,
  loadConfig,
  privateUrlsProblems,
  productionSecretProblems,
} from '@svc/config';
import { providerConfigSchema } from '@svc/providers';

const optionalSecret = Type.Optional(Type.String({ minLength: 1 }));

/** Every setting of the accounts service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  ...providerConfigSchema,
  /** Connected accounts allowed on the free plan (billing announces every other plan's limits); set it to billing's value. */
  PLAN_FREE_CONNECTED_ACCOUNTS: freePlanConfigSchema.PLAN_FREE_CONNECTED_ACCOUNTS,
  /** Port of the `/livez`, `/readyz` and `/metrics` endpoints for operators. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9101 }),
  /** Public address of the API; OAuth redirect URIs are `{PUBLIC_BASE_URL}/v1/oauth/{provider}/callback`. */
  PUBLIC_BASE_URL: Type.String({ pattern: '^https?://', default: 'http://127.0.0.1:8080' }),
  /** Encryption keys for tokens and client secrets: `k1:<base64 of 32 bytes>,k2:...`. */
  VAULT_KEYS: Type.String({ minLength: 1 }),
  /** Key of VAULT_KEYS that encrypts; default the last listed. The others still decrypt what they encrypted until it is re-encrypted. */
  VAULT_ACTIVE_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  /** HMAC key signing OAuth `state`. */
  OAUTH_STATE_SECRET: Type.String({ minLength: 32 }),
  /** Seconds an OAuth connect flow (its signed `state` and browser cookie) stays valid; a later callback is refused. */
  OAUTH_STATE_TTL_SECONDS: Type.Integer({ minimum: 60, maximum: 3600, default: 600 }),
  /** How often expired OAuth flows are deleted (each start adds one; none can complete once expired). */
  OAUTH_FLOW_PRUNE_INTERVAL_MS: Type.Integer({ minimum: 100, default: 10 * 60_000 }),
  /** Client id of the service's default Instagram app (used with INSTAGRAM_CLIENT_SECRET); an organization's own app (BYOK) overrides it. */
  INSTAGRAM_CLIENT_ID: optionalSecret,
  /** Client secret of the default Instagram app; Instagram has a default app only when both are set. */
  INSTAGRAM_CLIENT_SECRET: optionalSecret,
  /** Client id of the service's default Facebook app (used with FACEBOOK_CLIENT_SECRET); an organization's own app (BYOK) overrides it. */
  FACEBOOK_CLIENT_ID: optionalSecret,
  /** Client secret of the default Facebook app; Facebook has a default app only when both are set. */
  FACEBOOK_CLIENT_SECRET: optionalSecret,
  /** Client id of the service's default X app (used with X_CLIENT_SECRET); an organization's own app (BYOK) overrides it. */
  X_CLIENT_ID: optionalSecret,
  /** Client secret of the default X app; X has a default app only when both are set. */
  X_CLIENT_SECRET: optionalSecret,
  /** Client id of the service's default LinkedIn app (used with LINKEDIN_CLIENT_SECRET); an organization's own app (BYOK) overrides it. */
  LINKEDIN_CLIENT_ID: optionalSecret,
  /** Client secret of the default LinkedIn app; LinkedIn has a default app only when both are set. */
  LINKEDIN_CLIENT_SECRET: optionalSecret,
  /** Client key of the service's default TikTok app (used with TIKTOK_CLIENT_SECRET); an organization's own app (BYOK) overrides it. */
  TIKTOK_CLIENT_KEY: optionalSecret,
  /** Client secret of the default TikTok app; TikTok has a default app only when both are set. */
  TIKTOK_CLIENT_SECRET: optionalSecret,
  /** How often, in ms, the background pass refreshes tokens close to expiry and marks the unrefreshable ones `expiring`. */
  TOKEN_REFRESH_INTERVAL_MS: Type.Integer({ minimum: 100, default: 60_000 }),
  /** Tokens expiring within this many ms are refreshed, by the background pass or before a token is handed to a caller. */
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
