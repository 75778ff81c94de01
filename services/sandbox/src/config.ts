import { Type, type Static } from '@sinclair/typebox';
import { commonConfigSchema, loadConfig } from '@svc/config';

export const sandboxConfigSchema = Type.Object({
  /** `production` only makes the sandbox log a warning that it is for development and tests. */
  NODE_ENV: commonConfigSchema.NODE_ENV,
  /** Lowest level of the JSON (pino) logs written; `silent` writes none. */
  LOG_LEVEL: commonConfigSchema.LOG_LEVEL,
  /** Port the sandbox (fake network APIs for development and tests) listens on. */
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 4010 }),
  /**
   * Address it listens on: loopback by default; `0.0.0.0` in a container, where the services reach it
   * by its name (compose's dev profile, the Kubernetes dev overlay).
   */
  SANDBOX_HOST: Type.String({ default: '127.0.0.1', pattern: '^[0-9a-fA-F.:]+$' }),
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
  /**
   * Where the sandbox's Stripe delivers its webhooks: the product's Stripe webhook endpoint through the
   * gateway, `{PUBLIC_BASE_URL}/v1/billing/webhook`. With SANDBOX_STRIPE_WEBHOOK_SECRET it turns the
   * sandbox's Stripe on (API at `/v1`, hosted pages at `/stripe`); unset: off.
   */
  SANDBOX_STRIPE_WEBHOOK_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Signing secret of the sandbox's Stripe webhooks (`whsec_...`): billing's STRIPE_WEBHOOK_SECRET, the same value. */
  SANDBOX_STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ pattern: '^whsec_[A-Za-z0-9_]+$' })),
  /**
   * Comma-separated ids of the recurring prices the sandbox's Stripe sells (each US$29.00 a month);
   * billing's STRIPE_PRICE_ID must be one of them.
   */
  SANDBOX_STRIPE_PRICE_IDS: Type.String({ pattern: '^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$', default: 'price_sandbox_pro' }),
});

export type SandboxConfig = Static<typeof sandboxConfigSchema> & { SANDBOX_PUBLIC_URL: string };

/** The Stripe part needs both settings: a target without a secret (or the reverse) is a mistake, not "off". */
function stripeProblems(config: Static<typeof sandboxConfigSchema>): string[] {
  const url = config.SANDBOX_STRIPE_WEBHOOK_URL !== undefined;
  const secret = config.SANDBOX_STRIPE_WEBHOOK_SECRET !== undefined;
  if (url === secret) return [];
  return [
    url
      ? 'SANDBOX_STRIPE_WEBHOOK_SECRET is required with SANDBOX_STRIPE_WEBHOOK_URL (the sandbox signs its Stripe webhooks with it)'
      : 'SANDBOX_STRIPE_WEBHOOK_URL is required with SANDBOX_STRIPE_WEBHOOK_SECRET (where the sandbox sends its Stripe webhooks)',
  ];
}

export function loadSandboxConfig(env: Record<string, string | undefined> = process.env): SandboxConfig {
  const config = loadConfig(sandboxConfigSchema, env, stripeProblems);
  return { ...config, SANDBOX_PUBLIC_URL: config.SANDBOX_PUBLIC_URL ?? `http://127.0.0.1:${config.PORT}` };
}
