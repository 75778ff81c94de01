/**
 * Reset times of calendar quotas. Networks that count per calendar day or month in UTC (LinkedIn's
 * daily limits, X's usage caps) send no reset header, so a deferral waits until the boundary.
 */
export function msUntilNextUtcDay(nowMs: number): number {
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - nowMs;
}

export function msUntilNextUtcMonth(nowMs: number): number {
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - nowMs;
}
