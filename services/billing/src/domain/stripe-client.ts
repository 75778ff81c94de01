import Stripe from 'stripe';
import type { Config } from '../config.ts';

/**
 * The official SDK, pointed at Stripe or (STRIPE_API_URL) at any server speaking its API, such as
 * the tests' stand-in. Null without STRIPE_SECRET_KEY: the system runs, checkout answers 503.
 * The SDK retries connection failures, 409s and 5xx itself, always with the request's idempotency key.
 */
export function stripeFromConfig(
  config: Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_URL' | 'STRIPE_TIMEOUT_MS'>,
): Stripe | null {
  if (config.STRIPE_SECRET_KEY === undefined) return null;
  const endpoint = config.STRIPE_API_URL === undefined ? {} : endpointOf(config.STRIPE_API_URL);
  return new Stripe(config.STRIPE_SECRET_KEY, {
    ...endpoint,
    maxNetworkRetries: 2,
    timeout: config.STRIPE_TIMEOUT_MS,
    telemetry: false,
  });
}

function endpointOf(url: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const parsed = new URL(url);
  const protocol = parsed.protocol === 'http:' ? 'http' : 'https';
  return {
    host: parsed.hostname,
    port: parsed.port === '' ? (protocol === 'http' ? 80 : 443) : Number(parsed.port),
    protocol,
  };
}

/** Stripe ids are plain strings or expanded objects depending on the request; we only need the id. */
export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : value.id;
}
