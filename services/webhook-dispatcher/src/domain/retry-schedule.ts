/**
 * When the next attempt of a delivery is due (docs/api-conventions.md, "Webhooks: retries and
 * auto-pause"). `schedule[i]` is the delay before attempt i + 1, so `schedule.length` is the number of
 * attempts; `attemptsMade` counts the attempts so far. Jitter spreads retries of one outage over
 * ±`jitter`. A 429/503 `Retry-After` is honoured within the schedule: never sooner than the scheduled
 * delay, never more than twice it (a receiver cannot stall us). Returns undefined when the schedule is
 * used up.
 */
export function nextRetryDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  options: { jitter: number; retryAfterMs?: number | undefined; random?: () => number },
): number | undefined {
  const base = schedule[attemptsMade];
  if (base === undefined) return undefined;
  const random = options.random ?? Math.random;
  const jittered = Math.round(base * (1 + options.jitter * (2 * random() - 1)));
  if (options.retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(options.retryAfterMs, 2 * base));
}

/** `Retry-After` as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function parseSchedule(value: string): number[] {
  return value.split(',').map(Number);
}
