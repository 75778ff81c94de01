const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long a refresh stays fresh, by the post's age: networks' numbers move fast in a post's first
 * day and barely after a month, so young posts are read often and old ones rarely.
 */
export const CADENCE: readonly { maxAgeMs: number; intervalMs: number }[] = [
  { maxAgeMs: DAY, intervalMs: 15 * MINUTE },
  { maxAgeMs: 7 * DAY, intervalMs: HOUR },
  { maxAgeMs: 30 * DAY, intervalMs: DAY },
  { maxAgeMs: Number.POSITIVE_INFINITY, intervalMs: 7 * DAY },
];

export function freshnessInterval(postAgeMs: number): number {
  return (CADENCE.find((step) => postAgeMs < step.maxAgeMs) ?? CADENCE[CADENCE.length - 1]!).intervalMs;
}

/** When metrics read at `refreshedAt` for a post live since `liveSince` turn stale. */
export function staleAfter(liveSince: Date, refreshedAt: Date): Date {
  return new Date(refreshedAt.getTime() + freshnessInterval(Math.max(0, refreshedAt.getTime() - liveSince.getTime())));
}

/** The injected clock: every freshness decision reads time through it, so tests move time instead of waiting. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
