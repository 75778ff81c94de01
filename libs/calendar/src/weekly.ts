import { canonicalTimeZone, instantOf, wallClockAt } from './time-zone.ts';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One weekly time: a weekday and a wall-clock time `HH:MM` (24 h). */
export interface WeeklySlot {
  day: Weekday;
  time: string;
}

/** Weekly wall-clock times in one IANA zone. */
export interface WeeklySchedule {
  timezone: string;
  slots: readonly WeeklySlot[];
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DAY_MS = 24 * 3600 * 1000;

export function isWeekday(value: string): value is Weekday {
  return (WEEKDAYS as readonly string[]).includes(value);
}

/** Minutes after midnight of an `HH:MM` time, or null when it is not one. */
export function minutesOf(time: string): number | null {
  const match = TIME.exec(time);
  if (match === null) return null;
  return Number(match[1]) * 60 + Number(match[2]);
}

/** Monday 0 .. Sunday 6 of a calendar date (proleptic Gregorian, no zone involved). */
function weekdayIndex(year: number, month: number, day: number): number {
  return (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;
}

/**
 * The schedule's times after `after` (exclusive), ascending, each once, for at most `days` calendar
 * days of the zone from `after`'s date. A slot's time that the zone skips that day moves forward by
 * the jump; one it shows twice counts once, at its first occurrence; two slots landing on one
 * instant (02:30 moved to 03:30 beside a 03:30) count once.
 */
export function* weeklyOccurrences(schedule: WeeklySchedule, after: Date, days: number): Generator<Date> {
  const zone = canonicalTimeZone(schedule.timezone);
  if (zone === null) throw new RangeError(`unknown time zone ${schedule.timezone}`);
  const byDay = WEEKDAYS.map((weekday) =>
    [
      ...new Set(
        schedule.slots.filter((slot) => slot.day === weekday).map((slot) => minutesOf(slot.time) ?? Number.NaN),
      ),
    ]
      .filter((minutes) => !Number.isNaN(minutes))
      .sort((a, b) => a - b),
  );
  if (byDay.every((minutes) => minutes.length === 0)) return;
  const start = wallClockAt(zone, after.getTime());
  // From the day before `after`'s local date: a wall time of that date can still lie after `after`
  // only through a transition, which costs one more day to look at, never a missed time.
  const first = Date.UTC(start.year, start.month - 1, start.day) - DAY_MS;
  let last = after.getTime();
  for (let n = 0; n <= days + 1; n++) {
    const date = new Date(first + n * DAY_MS);
    const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    const instants = (byDay[weekdayIndex(year, month, day)] ?? [])
      .map((minutes) => instantOf(zone, { year, month, day, hour: Math.floor(minutes / 60), minute: minutes % 60 }))
      .sort((a, b) => a - b);
    for (const instant of instants) {
      if (instant <= last) continue;
      last = instant;
      yield new Date(instant);
    }
  }
}

/** The first `count` times of the schedule after `after`, looking at most `days` days ahead. */
export function nextOccurrences(schedule: WeeklySchedule, after: Date, count: number, days = 366): Date[] {
  const found: Date[] = [];
  if (count <= 0) return found;
  for (const at of weeklyOccurrences(schedule, after, days)) {
    found.push(at);
    if (found.length >= count) break;
  }
  return found;
}
