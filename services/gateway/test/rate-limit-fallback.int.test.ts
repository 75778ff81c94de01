import { Redis } from 'ioredis';
import { uniqueName } from '@svc/testing';
import { RateLimiter } from '../src/rate-limit/rate-limiter.ts';

/** While Redis cannot be reached, each replica counts in its own memory instead of failing requests. */
describe('rate limits without Redis', () => {
  // Nothing listens on port 1: every command fails at once (no offline queue), as in main.ts.
  const redis = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on('error', () => undefined);

  afterAll(() => redis.disconnect());

  it('keeps both limits locally, with the same headers and 429', async () => {
    const limiter = new RateLimiter(redis, { perKey: 2, perOrg: 10, perAddress: 10, windowSeconds: 60, keyPrefix: uniqueName('rl') });
    const principal = { kind: 'jwt' as const, orgId: 'org_local', userId: 'u1' };
    expect(await limiter.consume(principal)).toMatchObject({ limit: 2, remaining: 1 });
    expect(await limiter.consume(principal)).toMatchObject({ limit: 2, remaining: 0 });
    await expect(limiter.consume(principal)).rejects.toMatchObject({ code: 'rate_limited', headers: expect.objectContaining({ 'Retry-After': expect.any(String) }) });
  });
});
