import { Type, type Static } from '@sinclair/typebox';
import { commonConfigSchema, loadConfig } from '@svc/config';

export const sandboxConfigSchema = Type.Object({
  NODE_ENV: commonConfigSchema.NODE_ENV,
  LOG_LEVEL: commonConfigSchema.LOG_LEVEL,
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4010 }),
  /** Absolute base the sandbox puts in URLs it hands out; defaults to http://127.0.0.1:<PORT>. */
  SANDBOX_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** The sandbox fetches media the tests serve on 127.0.0.1, so loopback is allowed by default. */
  ALLOW_PRIVATE_URLS: Type.Boolean({ default: true }),
  /** How long a `timeout` fault hangs before dropping the connection. */
  SANDBOX_TIMEOUT_FAULT_MS: Type.Integer({ minimum: 0, default: 60000 }),
  /** Status reads an async job answers "in progress" before it completes. */
  SANDBOX_PROCESSING_POLLS: Type.Integer({ minimum: 0, default: 1 }),
  /** Instagram's rolling 24 h publishing quota (networks.md §1.4: 50 or 100). */
  SANDBOX_IG_QUOTA_TOTAL: Type.Integer({ minimum: 1, default: 100 }),
  /** Comma-separated URL prefixes verified for the TikTok app (PULL_FROM_URL); unset: no check. */
  SANDBOX_TIKTOK_VERIFIED_PREFIXES: Type.Optional(Type.String()),
});

export type SandboxConfig = Static<typeof sandboxConfigSchema> & { SANDBOX_PUBLIC_URL: string };

export function loadSandboxConfig(env: Record<string, string | undefined> = process.env): SandboxConfig {
  const config = loadConfig(sandboxConfigSchema, env);
  return { ...config, SANDBOX_PUBLIC_URL: config.SANDBOX_PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}` };
}
