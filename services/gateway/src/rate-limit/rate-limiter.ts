import { AppError } from '@svc/errors';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { callerKey, type Principal } from '../auth/principal.ts';

export interface RateLimitSettings {
  perKey: number;
  perOrg: number;
  windowSeconds: number;
  /** Requests per window from one client address that carry no valid credential. */
  perAddress: number;
  /** Stripe webhook deliveries per window from one address, counted apart from `perAddress`. */
  perStripeWebhook: number;
  /** OAuth callbacks per window from one address, counted apart from `perAddress`. */
  perOAuthCallback: number;
  /** Isolates test runs that share one Redis. */
  keyPrefix?: string;
}

/**
 * Where an anonymous request is counted, per client address: the shared bucket, or one of its own
 * for the endpoints whose callers must not be starved by others' junk from the same address.
 */
export type AnonymousBucket = 'address' | 'stripe_webhook' | 'oauth_callback';

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** A fixed-window counter in Redis, shared by every gateway replica. */
export function redisCounter(redis: Redis, points: number, duration: number, keyPrefix: string) {
  return new RateLimiterRedis({
    storeClient: redis,
    points,
    duration,
    keyPrefix,
    // When Redis is unreachable each replica keeps counting locally instead of failing requests.
    insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix }),
  });
}

function state(points: number, res: RateLimiterRes): RateLimitState {
  return {
    limit: points,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.ceil(res.msBeforeNext / 1000),
  };
}

export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(s.limit),
    'RateLimit-Remaining': String(s.remaining),
    'RateLimit-Reset': String(s.resetSeconds),
  };
}

/**
 * Two fixed-window limits counted in Redis (shared by every gateway replica): one per API key (or
 * dashboard user), one per organization. The headers describe whichever is closer to running out.
 */
export class RateLimiter {
  private readonly perKey: RateLimiterRedis;
  private readonly perOrg: RateLimiterRedis;
  private readonly anonymous: Record<AnonymousBucket, { points: number; limiter: RateLimiterRedis }>;

  constructor(
    redis: Redis,
    private readonly settings: RateLimitSettings,
  ) {
    const prefix = settings.keyPrefix ?? 'rl';
    this.perKey = redisCounter(redis, settings.perKey, settings.windowSeconds, `${prefix}:key`);
    this.perOrg = redisCounter(redis, settings.perOrg, settings.windowSeconds, `${prefix}:org`);
    const bucket = (points: number, name: string) => ({
      points,
      limiter: redisCounter(redis, points, settings.windowSeconds, `${prefix}:${name}`),
    });
    this.anonymous = {
      address: bucket(settings.perAddress, 'addr'),
      stripe_webhook: bucket(settings.perStripeWebhook, 'stripe-webhook'),
      oauth_callback: bucket(settings.perOAuthCallback, 'oauth-callback'),
    };
  }

  /** Counts one request without a valid credential from a client address (behind TRUST_PROXY_HOPS) in its bucket. */
  async consumeAnonymous(address: string, bucket: AnonymousBucket = 'address'): Promise<void> {
    const { points, limiter: counter } = this.anonymous[bucket];
    try {
      await counter.consume(address);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      throw this.limited(state(points, error));
    }
  }

  private limited(worst: RateLimitState): AppError {
    return new AppError(
      'rate_limited',
      `Rate limit of ${worst.limit} requests per ${this.settings.windowSeconds} s exceeded; retry in ${worst.resetSeconds} s.`,
      {
        retryable: true,
        headers: { ...rateLimitHeaders(worst), 'Retry-After': String(Math.max(1, worst.resetSeconds)) },
      },
    );
  }

  /** Counts one request; throws a 429 AppError (with Retry-After and RateLimit headers) when over a limit. */
  async consume(principal: Principal): Promise<RateLimitState> {
    const results = await Promise.allSettled([
      this.perKey.consume(callerKey(principal)),
      this.perOrg.consume(principal.orgId),
    ]);
    const states = results.map((result, index) => {
      const points = index === 0 ? this.settings.perKey : this.settings.perOrg;
      if (result.status === 'fulfilled') return { state: state(points, result.value), limited: false };
      if (result.reason instanceof RateLimiterRes) return { state: state(points, result.reason), limited: true };
      throw result.reason;
    });
    const limited = states.filter((entry) => entry.limited);
    if (limited.length > 0) {
      throw this.limited(limited.reduce((a, b) => (a.state.resetSeconds >= b.state.resetSeconds ? a : b)).state);
    }
    return states
      .map((entry) => entry.state)
      .reduce((a, b) => (a.remaining / a.limit <= b.remaining / b.limit ? a : b));
  }
}
