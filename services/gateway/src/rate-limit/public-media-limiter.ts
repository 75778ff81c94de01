import { AppError } from '@svc/errors';
import { ConcurrencySlots, type ReleaseSlot } from '@svc/media';
import type { Redis } from 'ioredis';
import { type RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { redisCounter } from './rate-limiter.ts';

export interface PublicMediaLimits {
  /** Requests per window from one client address. */
  perAddress: number;
  /** Of those, lookups that found nothing (guessed or deleted ids). */
  missesPerAddress: number;
  windowSeconds: number;
  /** Bodies streamed at once by this process, in all and to one address. */
  streams: number;
  streamsPerAddress: number;
  /** Isolates test runs that share one Redis. */
  keyPrefix?: string;
}

/**
 * Bounds what an anonymous client can make the gateway do through public media URLs: each request
 * is at most one storage lookup (an S3 HEAD) and counts against its address; misses have a smaller
 * budget of their own, checked before the lookup, so walking guessed ids stops early; and bodies are
 * streamed through this process a bounded number at a time.
 */
export class PublicMediaLimiter {
  private readonly requests: RateLimiterRedis;
  private readonly misses: RateLimiterRedis;
  private readonly streams: ConcurrencySlots;

  constructor(
    redis: Redis,
    private readonly limits: PublicMediaLimits,
  ) {
    const prefix = limits.keyPrefix ?? 'rl';
    this.requests = redisCounter(redis, limits.perAddress, limits.windowSeconds, `${prefix}:media`);
    this.misses = redisCounter(redis, limits.missesPerAddress, limits.windowSeconds, `${prefix}:media-miss`);
    this.streams = new ConcurrencySlots({
      total: limits.streams,
      perKey: limits.streamsPerAddress,
      retryAfterSeconds: 1,
      work: 'media downloads',
      keyName: 'This address',
      rule: 'media_streams',
    });
  }

  /** Counts a request before its lookup; 429 past the address's requests or misses. */
  async admit(address: string): Promise<void> {
    try {
      await this.requests.consume(address);
    } catch (error) {
      throw this.limited(error, this.limits.perAddress, 'requests');
    }
    const misses = await this.misses.get(address);
    if (misses !== null && misses.consumedPoints >= this.limits.missesPerAddress)
      throw this.limited(misses, this.limits.missesPerAddress, 'requests for missing media');
  }

  /** Counts a lookup that found nothing. */
  async missed(address: string): Promise<void> {
    await this.misses.penalty(address, 1);
  }

  /** A streaming slot for the address, given back when the body ends or the client leaves. */
  stream(address: string): ReleaseSlot {
    return this.streams.acquire(address);
  }

  private limited(error: unknown, limit: number, what: string): AppError {
    if (!(error instanceof RateLimiterRes)) throw error;
    const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
    return new AppError(
      'rate_limited',
      `More than ${limit} ${what} per ${this.limits.windowSeconds} s from this address; retry in ${seconds} s.`,
      {
        retryable: true,
        headers: { 'Retry-After': String(seconds) },
      },
    );
  }
}
