import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { dashboardErrors } from './errors.ts';

export interface ThrottleLimits {
  failuresPerAddress: number;
  failuresPerAccount: number;
  signupsPerAddress: number;
  windowSeconds: number;
  /** Isolates test runs that share one Redis. */
  keyPrefix?: string;
}

function counter(redis: Redis, points: number, duration: number, keyPrefix: string): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: redis,
    points,
    duration,
    keyPrefix,
    // When Redis is unreachable each replica keeps counting locally rather than letting guesses through.
    insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix }),
  });
}

const waitOf = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/**
 * Failed sign-ins counted per client address and per account (the email, known or not), in Redis so
 * every replica sees them: one address cannot guess many accounts' passwords, and many addresses
 * cannot guess one account's. Sign-ups count per address (each costs an argon2id hash).
 */
export class LoginThrottle {
  private readonly byAddress: RateLimiterRedis;
  private readonly byAccount: RateLimiterRedis;
  private readonly signups: RateLimiterRedis;

  constructor(
    redis: Redis,
    private readonly limits: ThrottleLimits,
  ) {
    const prefix = limits.keyPrefix ?? 'dash';
    this.byAddress = counter(redis, limits.failuresPerAddress, limits.windowSeconds, `${prefix}:login-addr`);
    this.byAccount = counter(redis, limits.failuresPerAccount, limits.windowSeconds, `${prefix}:login-acct`);
    this.signups = counter(redis, limits.signupsPerAddress, limits.windowSeconds, `${prefix}:signup-addr`);
  }

  /** Refuses (429) before the password is even checked when either count is spent. */
  async admitSignIn(address: string, email: string): Promise<void> {
    const [byAddress, byAccount] = await Promise.all([this.byAddress.get(address), this.byAccount.get(email)]);
    if (byAddress !== null && byAddress.consumedPoints >= this.limits.failuresPerAddress)
      throw dashboardErrors.throttled('failed sign-ins from this address', waitOf(byAddress));
    if (byAccount !== null && byAccount.consumedPoints >= this.limits.failuresPerAccount)
      throw dashboardErrors.throttled('failed sign-ins for this account', waitOf(byAccount));
  }

  async failed(address: string, email: string): Promise<void> {
    await Promise.all([this.byAddress.penalty(address, 1), this.byAccount.penalty(email, 1)]);
  }

  /** A correct password clears the account's count (not the address's: it may be guessing others). */
  async succeeded(email: string): Promise<void> {
    await this.byAccount.delete(email);
  }

  async admitSignUp(address: string): Promise<void> {
    try {
      await this.signups.consume(address);
    } catch (error) {
      if (error instanceof Error) throw error;
      throw dashboardErrors.throttled('sign-ups from this address', waitOf(error as RateLimiterRes));
    }
  }
}
