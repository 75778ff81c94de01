import { utcToWallTime } from '../compose/schedule-time.ts';

/** A day as `YYYY-MM-DD` in the user's time zone: the calendar's cells are the user's days. */
export function dayKey(instant: Date | string, timeZone: string): string {
  return utcToWallTime(new Date(instant), timeZone).slice(0, 10);
}

const addDays = (key: string, days: number) => {
  const [y, m, d] = key.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
};
const weekday = (key: string) => (new Date(`${key}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0

/** The seven days (Monday first) of the week holding `anchor`. */
export function weekDays(anchor: string): string[] {
  const monday = addDays(anchor, -weekday(anchor));
  return Array.from({ length: 7 }, (_, i) => addDays(monday, i));
}

/** The month of `anchor` as whole weeks, Monday first, days of the neighbouring months included. */
export function monthWeeks(anchor: string): string[][] {
  const first = `${anchor.slice(0, 7)}-01`;
  const weeks: string[][] = [];
  let start = weekDays(first)[0]!;
  while (weeks.length === 0 || start.slice(0, 7) === anchor.slice(0, 7)) {
    weeks.push(weekDays(start));
    start = addDays(start, 7);
  }
  return weeks;
}

export const shiftDays = addDays;

/** The first day of the next (or previous, with -1) month. */
export function shiftMonth(anchor: string, months: number): string {
  const [y, m] = anchor.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 + months, 1)).toISOString().slice(0, 10);
}

/** Items grouped by the user's day of their `at` instant. */
export function byDay<T>(items: readonly T[], at: (item: T) => string | null, timeZone: string): Map<string, T[]> {
  const days = new Map<string, T[]>();
  for (const item of items) {
    const instant = at(item);
    if (instant === null) continue;
    const key = dayKey(instant, timeZone);
    days.set(key, [...(days.get(key) ?? []), item]);
  }
  return days;
}
