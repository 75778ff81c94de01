import { Type, type Static } from '@sinclair/typebox';
import {
  COMMON_SECRET_URLS,
  commonConfigSchema,
  freePlanConfigSchema,
  loadConfig,
  productionSecretProblems,
} from '@svc/config';

/**
 * Every setting of the billing service; the only module that reads the environment. Outside
 * production the Stripe settings are optional so the system starts without them: checkout and portal
 * then answer 503 naming the missing setting, and the webhook answers 503 until STRIPE_WEBHOOK_SECRET
 * is set. In production the service refuses to start without them (or with placeholders).
 */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  ...freePlanConfigSchema,
  /** Port of the `/livez`, `/readyz` and `/metrics` endpoints for operators. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9106 }),
  /** Secret (sk_...) or restricted (rk_...) API key; a test-mode key for development. */
  STRIPE_SECRET_KEY: Type.Optional(Type.String({ pattern: '^(sk|rk)_' })),
  /** Signing secret of the webhook endpoint (whsec_...), shown by Stripe when the endpoint is created. */
  STRIPE_WEBHOOK_SECRET: Type.Optional(Type.String({ pattern: '^whsec_' })),
  /**
   * The recurring price of the paid plan that checkout subscribes to. A subscription gives the paid
   * plan only when one of its items is for this price (or one of STRIPE_LEGACY_PRICE_IDS).
   */
  STRIPE_PRICE_ID: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Earlier prices of the paid plan, comma-separated, whose subscribers keep it after STRIPE_PRICE_ID
   * changed (Stripe keeps existing subscriptions on their price); checkout sells only STRIPE_PRICE_ID.
   */
  STRIPE_LEGACY_PRICE_IDS: Type.String({ pattern: '^([^,\\s]+(,[^,\\s]+)*)?$', default: '' }),
  /**
   * Where the SDK sends API requests (protocol, host and port; the SDK adds `/v1`); unset: Stripe
   * itself, as in production. Development points it at the sandbox's Stripe (`http://127.0.0.1:4010`),
   * tests at the sandbox or their Stripe stand-in.
   */
  STRIPE_API_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+/?$' })),
  /** Timeout of one Stripe API request, in ms; the SDK retries a failed request twice. */
  STRIPE_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000 }),
  /** Webhooks signed longer ago than this are refused (replay protection; Stripe's default is 300 s). */
  STRIPE_WEBHOOK_TOLERANCE_SECONDS: Type.Integer({ minimum: 1, default: 300 }),
  /**
   * Where Checkout sends the browser after a payment (Stripe fills in `{CHECKOUT_SESSION_ID}` if the
   * address has it): the dashboard's billing page, which waits for the plan to change.
   */
  BILLING_SUCCESS_URL: Type.String({
    pattern: '^https?://',
    default: 'http://127.0.0.1:3000/billing?checkout=success',
  }),
  /** Where Checkout sends the browser when the customer leaves without paying: the dashboard's billing page. */
  BILLING_CANCEL_URL: Type.String({
    pattern: '^https?://',
    default: 'http://127.0.0.1:3000/billing?checkout=canceled',
  }),
  /** Where the customer portal's link back to the product goes: the dashboard's billing page. */
  BILLING_PORTAL_RETURN_URL: Type.String({ pattern: '^https?://', default: 'http://127.0.0.1:3000/billing' }),
  /** Connected accounts allowed on the paid plan. */
  PLAN_PRO_CONNECTED_ACCOUNTS: Type.Integer({ minimum: 0, default: 100 }),
  /** Posts (jobs) allowed per calendar month (UTC) on the paid plan. */
  PLAN_PRO_POSTS_PER_MONTH: Type.Integer({ minimum: 0, default: 10_000 }),
  /**
   * How long an applied Stripe event's id is remembered (the webhook's exactly-once record). Stripe
   * retries a webhook for up to 3 days, so at least 4; 30 covers a resend from the Dashboard too.
   */
  STRIPE_EVENTS_RETENTION_DAYS: Type.Integer({ minimum: 4, default: 30 }),
});

export type Config = Static<typeof configSchema>;

/**
 * Optional in development (each feature answers 503 naming the missing one), required in production:
 * a production billing without them would take no payment and apply no subscription.
 */
const STRIPE_SETTINGS = ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_ID'];

/** The prices whose subscriptions give the paid plan: the one sold and the earlier ones still honoured. */
export function paidPriceIds(config: Pick<Config, 'STRIPE_PRICE_ID' | 'STRIPE_LEGACY_PRICE_IDS'>): string[] {
  return [
    ...(config.STRIPE_PRICE_ID === undefined ? [] : [config.STRIPE_PRICE_ID]),
    ...config.STRIPE_LEGACY_PRICE_IDS.split(',').filter(Boolean),
  ];
}

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env, (config) => [
    ...productionSecretProblems(config, [...STRIPE_SETTINGS, ...COMMON_SECRET_URLS], { required: STRIPE_SETTINGS }),
    ...(config.NODE_ENV === 'production' && config.STRIPE_API_URL?.startsWith('http://') === true
      ? ['STRIPE_API_URL must be https in production']
      : []),
  ]);
}
