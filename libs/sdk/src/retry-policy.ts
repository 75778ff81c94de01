// When a failed attempt is tried again, and after how long (docs/sdk.md, "Retries"). Pure, so the
// rules are unit-tested apart from any network.

/** How hard the client retries; `retry: false` in the client options sends each request once. */
export interface RetryOptions {
  /** Attempts per call, the first included (default 4). */
  maxAttempts?: number;
  /** The backoff's first ceiling; each retry doubles it (default 500 ms). */
  baseDelayMs?: number;
  /** The backoff's largest ceiling (default 20 s); a server-given wait is not capped by it. */
  maxDelayMs?: number;
  /** No retry starts past this much time since the call began, waits included (default 60 s). */
  maxElapsedMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxElapsedMs: 60_000,
};
export const NO_RETRY: RetryPolicy = { ...DEFAULT_RETRY, maxAttempts: 1 };

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return NO_RETRY;
  return { ...DEFAULT_RETRY, ...options };
}

/** What went wrong with one attempt. */
export type AttemptFailure =
  | { kind: 'response'; status: number; headers: Headers }
  /** No answer; `unsent` when the connection was never made, so the API cannot have seen the request. */
  | { kind: 'network'; unsent: boolean };

export interface AttemptContext {
  /** 1 for the first attempt. */
  attempt: number;
  elapsedMs: number;
  /** Repeating the request cannot do its work twice (reads, deletes, POSTs with Idempotency-Key). */
  repeatable: boolean;
  policy: RetryPolicy;
  /** Now, for HTTP-date `Retry-After` values. */
  nowMs: number;
  /** A number in [0, 1), for the jitter. */
  random: number;
}

/**
 * The delay before the next attempt, or undefined to give up. Retried: a 429 always (the rate limiter
 * refuses before any work is done); a 503 and a request with no answer only when the request is
 * repeatable, since the API may have done the work (a 503 is an RPC that timed out); a request that
 * never left (connection refused, no such host) always. Never another status: a 4xx says the same
 * again, and a 500 is a bug a retry would only repeat.
 */
export function nextRetryDelay(failure: AttemptFailure, context: AttemptContext): number | undefined {
  if (context.attempt >= context.policy.maxAttempts) return undefined;
  const retryable =
    failure.kind === 'network'
      ? failure.unsent || context.repeatable
      : failure.status === 429 || (failure.status === 503 && context.repeatable);
  if (!retryable) return undefined;
  const told = failure.kind === 'response' ? serverDelayMs(failure.headers, context.nowMs) : undefined;
  const delay = told ?? backoffMs(context.attempt, context.policy, context.random);
  return context.elapsedMs + delay > context.policy.maxElapsedMs ? undefined : delay;
}

/** Exponential backoff with full jitter: uniform in [0, min(maxDelay, base * 2^(attempt-1))). */
export function backoffMs(attempt: number, policy: RetryPolicy, random: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random * ceiling);
}

/**
 * The wait the server asked for: `Retry-After` (seconds or an HTTP date), else, when the window is
 * spent (`RateLimit-Remaining: 0`), `RateLimit-Reset` (seconds until the window ends).
 */
export function serverDelayMs(headers: Headers, nowMs: number): number | undefined {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - nowMs);
  }
  const remaining = headers.get('ratelimit-remaining')?.trim();
  const reset = headers.get('ratelimit-reset')?.trim();
  if (remaining === '0' && reset !== undefined && /^\d+$/.test(reset)) return Number(reset) * 1000;
  return undefined;
}
