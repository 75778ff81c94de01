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
  /** Isolates test runs that share one Redis. */
  keyPrefix?: string;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

function limiter(redis: Redis, points: number, duration: number, keyPrefix: string) {
  return new RateLimiterRedis({
    storeClient: redis,
    points,
    duration,
    keyPrefix,
    // When Redis is unreachable each replica keeps counting locally instead of failing requests.
    insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix }),
  });
}

/**
 * Both windows of an authenticated request in one Redis round trip (it was one call per limit, and
 * those two calls were ~20% of the gateway's CPU per accepted post: docs/performance.md, Accept
 * path). The same counting as rate-limiter-flexible's Redis store, on the same keys: a counter per
 * window created with its expiry (SET NX PX), incremented, read back with its remaining time. Both
 * keys live on one Redis (no cluster slots to match).
 */
const CONSUME_WINDOWS = `
local out = {}
for i, key in ipairs(KEYS) do
  redis.call('SET', key, 0, 'PX', ARGV[1], 'NX')
  out[2 * i - 1] = redis.call('INCR', key)
  out[2 * i] = redis.call('PTTL', key)
end
return out`;

type WindowsRedis = Redis & { consumeWindows(keyCounter: string, orgCounter: string, windowMs: number): Promise<number[]> };

function state(points: number, res: RateLimiterRes): RateLimitState {
  return { limit: points, remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
}

export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return { 'RateLimit-Limit': String(s.limit), 'RateLimit-Remaining': String(s.remaining), 'RateLimit-Reset': String(s.resetSeconds) };
}

/**
 * Two fixed-window limits counted in Redis (shared by every gateway replica): one per API key (or
 * dashboard user), one per organization. The headers describe whichever is closer to running out.
 */
export class RateLimiter {
  private readonly redis: WindowsRedis;
  private readonly prefix: string;
  /** Where each replica counts alone while Redis cannot be reached. */
  private readonly perKeyLocal: RateLimiterMemory;
  private readonly perOrgLocal: RateLimiterMemory;
  private readonly perAddress: RateLimiterRedis;

  constructor(redis: Redis, private readonly settings: RateLimitSettings) {
    this.prefix = settings.keyPrefix ?? 'rl';
    redis.defineCommand('consumeWindows', { numberOfKeys: 2, lua: CONSUME_WINDOWS });
    this.redis = redis as WindowsRedis;
    this.perKeyLocal = new RateLimiterMemory({ points: settings.perKey, duration: settings.windowSeconds, keyPrefix: `${this.prefix}:key` });
    this.perOrgLocal = new RateLimiterMemory({ points: settings.perOrg, duration: settings.windowSeconds, keyPrefix: `${this.prefix}:org` });
    this.perAddress = limiter(redis, settings.perAddress, settings.windowSeconds, `${this.prefix}:addr`);
  }

  /** Counts one request without a valid credential from a client address (behind TRUST_PROXY_HOPS). */
  async consumeAnonymous(address: string): Promise<void> {
    try {
      await this.perAddress.consume(address);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      throw this.limited(state(this.settings.perAddress, error));
    }
  }

  private limited(worst: RateLimitState): AppError {
    return new AppError('rate_limited', `Rate limit of ${worst.limit} requests per ${this.settings.windowSeconds} s exceeded; retry in ${worst.resetSeconds} s.`, {
      retryable: true,
      headers: { ...rateLimitHeaders(worst), 'Retry-After': String(Math.max(1, worst.resetSeconds)) },
    });
  }

  /** Counts one request; throws a 429 AppError (with Retry-After and RateLimit headers) when over a limit. */
  async consume(principal: Principal): Promise<RateLimitState> {
    const counts = await this.count(callerKey(principal), principal.orgId);
    const states = counts.map(({ consumed, msLeft }, index) => {
      const points = index === 0 ? this.settings.perKey : this.settings.perOrg;
      const current: RateLimitState = { limit: points, remaining: Math.max(0, points - consumed), resetSeconds: Math.ceil(Math.max(0, msLeft) / 1000) };
      return { state: current, limited: consumed > points };
    });
    const limited = states.filter((entry) => entry.limited);
    if (limited.length > 0) {
      throw this.limited(limited.reduce((a, b) => (a.state.resetSeconds >= b.state.resetSeconds ? a : b)).state);
    }
    return states.map((entry) => entry.state).reduce((a, b) => (a.remaining / a.limit <= b.remaining / b.limit ? a : b));
  }

  /** Both windows counted in Redis in one call, or in this replica's memory when Redis fails. */
  private async count(key: string, orgId: string): Promise<{ consumed: number; msLeft: number }[]> {
    const windowMs = this.settings.windowSeconds * 1000;
    try {
      const [keyConsumed, keyMs, orgConsumed, orgMs] = await this.redis.consumeWindows(`${this.prefix}:key:${key}`, `${this.prefix}:org:${orgId}`, windowMs);
      return [{ consumed: keyConsumed!, msLeft: keyMs! }, { consumed: orgConsumed!, msLeft: orgMs! }];
    } catch {
      // Redis unreachable (the client fails at once, without an offline queue): count locally, as
      // rate-limiter-flexible's insurance limiter did, rather than failing the request.
      return Promise.all([this.local(this.perKeyLocal, key), this.local(this.perOrgLocal, orgId)]);
    }
  }

  private async local(limiter: RateLimiterMemory, key: string): Promise<{ consumed: number; msLeft: number }> {
    try {
      const res = await limiter.consume(key);
      return { consumed: res.consumedPoints, msLeft: res.msBeforeNext };
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return { consumed: error.consumedPoints, msLeft: error.msBeforeNext };
    }
  }
}
