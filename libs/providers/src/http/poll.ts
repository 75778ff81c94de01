/** Bounded exponential backoff for async network jobs (IG containers, X media, TikTok publishes). */
export interface PollingOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

export const defaultPolling: PollingOptions = { initialDelayMs: 2000, maxDelayMs: 30000, maxAttempts: 15 };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type PollStep<T> = { done: true; value: T } | { done: false; delayHintMs?: number | undefined };

/**
 * Calls `check` until it reports done, waiting `initialDelayMs`, doubling to `maxDelayMs` (or the
 * network's own hint) between attempts; after `maxAttempts` calls `onGiveUp` decides the error.
 */
export async function pollUntil<T>(
  options: PollingOptions,
  check: (attempt: number) => Promise<PollStep<T>>,
  onGiveUp: () => Error,
): Promise<T> {
  const sleep = options.sleep ?? realSleep;
  let delay = options.initialDelayMs;
  for (let attempt = 1; attempt <= options.maxAttempts; attempt += 1) {
    const step = await check(attempt);
    if (step.done) return step.value;
    if (attempt === options.maxAttempts) break;
    const hinted = step.delayHintMs === undefined ? delay : Math.max(delay, step.delayHintMs);
    await sleep(Math.min(hinted, options.maxDelayMs));
    delay = Math.min(delay * 2, options.maxDelayMs);
  }
  throw onGiveUp();
}
