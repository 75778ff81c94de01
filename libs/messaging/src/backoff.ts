/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half random, so a fleet of
 * services that lost the same broker does not reconnect in lockstep.
 */
export function backoffDelay(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base / 2 + (random() * base) / 2);
}
