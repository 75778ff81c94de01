import {
  backoffMs,
  DEFAULT_RETRY,
  nextRetryDelay,
  retryPolicy,
  serverDelayMs,
  type AttemptContext,
} from './retry-policy.ts';

const context = (overrides: Partial<AttemptContext> = {}): AttemptContext => ({
  attempt: 1,
  elapsedMs: 0,
  repeatable: false,
  policy: DEFAULT_RETRY,
  nowMs: Date.parse('2026-01-01T00:00:00Z'),
  random: 0.5,
  ...overrides,
});
const response = (status: number, headers: Record<string, string> = {}) =>
  ({ kind: 'response', status, headers: new Headers(headers) }) as const;

describe('nextRetryDelay (docs/sdk.md, "Retries")', () => {
  it('retries a 429 whatever the request, after Retry-After seconds or until its HTTP date', () => {
    expect(nextRetryDelay(response(429, { 'Retry-After': '3' }), context())).toBe(3000);
    expect(nextRetryDelay(response(429, { 'Retry-After': 'Thu, 01 Jan 2026 00:00:07 GMT' }), context())).toBe(7000);
  });

  it('falls back to RateLimit-Reset only when the window is spent, then to jittered backoff', () => {
    expect(nextRetryDelay(response(429, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '12' }), context())).toBe(
      12_000,
    );
    expect(serverDelayMs(new Headers({ 'RateLimit-Remaining': '5', 'RateLimit-Reset': '12' }), 0)).toBeUndefined();
    expect(nextRetryDelay(response(429), context({ random: 0.5 }))).toBe(250);
  });

  it('retries a 503 or a lost answer only when repeating is harmless; a request never sent always', () => {
    expect(nextRetryDelay(response(503), context({ repeatable: false }))).toBeUndefined();
    expect(nextRetryDelay(response(503), context({ repeatable: true }))).toBe(250);
    expect(nextRetryDelay({ kind: 'network', unsent: false }, context({ repeatable: false }))).toBeUndefined();
    expect(nextRetryDelay({ kind: 'network', unsent: false }, context({ repeatable: true }))).toBe(250);
    expect(nextRetryDelay({ kind: 'network', unsent: true }, context({ repeatable: false }))).toBe(250);
  });

  it('never retries a 500 or another 4xx', () => {
    for (const status of [400, 401, 404, 409, 422, 500, 502])
      expect(nextRetryDelay(response(status), context({ repeatable: true }))).toBeUndefined();
  });

  it('stops after maxAttempts, and before a wait that would pass maxElapsedMs', () => {
    expect(nextRetryDelay(response(429), context({ attempt: 4 }))).toBeUndefined();
    expect(nextRetryDelay(response(429, { 'Retry-After': '30' }), context({ elapsedMs: 40_000 }))).toBeUndefined();
    expect(retryPolicy(false).maxAttempts).toBe(1);
    expect(retryPolicy({ maxAttempts: 9 })).toEqual({ ...DEFAULT_RETRY, maxAttempts: 9 });
  });

  it('draws full jitter under a doubling ceiling capped at maxDelayMs', () => {
    expect(backoffMs(1, DEFAULT_RETRY, 0.999)).toBe(499);
    expect(backoffMs(3, DEFAULT_RETRY, 0.999)).toBe(1998);
    expect(backoffMs(20, DEFAULT_RETRY, 0.999)).toBe(19_980);
    expect(backoffMs(3, DEFAULT_RETRY, 0)).toBe(0);
  });
});
