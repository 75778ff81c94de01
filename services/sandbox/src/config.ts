import { Type, type Static } from '@sinclair/typebox';
import { commonConfigSchema, loadConfig } from '@svc/config';

export const sandboxConfigSchema = Type.Object({
  /** `production` only makes the sandbox log a warning that it is for development and tests. */
  NODE_ENV: commonConfigSchema.NODE_ENV,
  /** Lowest level of the JSON (pino) logs written; `silent` writes none. */
  LOG_LEVEL: commonConfigSchema.LOG_LEVEL,
  /** Port the sandbox (fake network APIs for development and tests) listens on, on 127.0.0.1 only. */
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4010 }),
  /** Absolute base the sandbox puts in URLs it hands out; defaults to http://127.0.0.1:<PORT>. */
  SANDBOX_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Lets the sandbox fetch media from loopback/private addresses; on by default, as the tests serve media on 127.0.0.1. */
  ALLOW_PRIVATE_URLS: Type.Boolean({ default: true }),
  /** How long a `timeout` fault hangs before dropping the connection. */
  SANDBOX_TIMEOUT_FAULT_MS: Type.Integer({ minimum: 0, default: 60000 }),
  /** Status reads an async job answers "in progress" before it completes. */
  SANDBOX_PROCESSING_POLLS: Type.Integer({ minimum: 0, default: 1 }),
  /** Posts per rolling 24 h the fake Instagram allows an account (the real limit is 50 or 100, docs/networks.md). */
  SANDBOX_IG_QUOTA_TOTAL: Type.Integer({ minimum: 1, default: 100 }),
  /** Comma-separated URL prefixes verified for the TikTok app (PULL_FROM_URL); unset: no check. */
  SANDBOX_TIKTOK_VERIFIED_PREFIXES: Type.Optional(Type.String()),
});

export type SandboxConfig = Static<typeof sandboxConfigSchema> & { SANDBOX_PUBLIC_URL: string };

export function loadSandboxConfig(env: Record<string, string | undefined> = process.env): SandboxConfig {
  const config = loadConfig(sandboxConfigSchema, env);
  return { ...config, SANDBOX_PUBLIC_URL: config.SANDBOX_PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}` };
}
