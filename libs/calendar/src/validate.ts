import { canonicalTimeZone } from './time-zone.ts';
import { isWeekday, minutesOf, WEEKDAYS } from './weekly.ts';

/** One problem of a schedule, in the API's error detail shape (`path` under the given prefix). */
export interface ScheduleProblem {
  path: string;
  rule: 'timezone_invalid' | 'day_invalid' | 'time_invalid' | 'slot_duplicate';
  message: string;
}

export function timeZoneProblem(timezone: string, path: string): ScheduleProblem | null {
  return canonicalTimeZone(timezone) === null
    ? { path, rule: 'timezone_invalid', message: `is not an IANA time zone name (e.g. Europe/Berlin): ${timezone}` }
    : null;
}

export function dayProblem(day: string, path: string): ScheduleProblem | null {
  return isWeekday(day) ? null : { path, rule: 'day_invalid', message: `must be one of ${WEEKDAYS.join(', ')}` };
}

export function timeProblem(time: string, path: string): ScheduleProblem | null {
  return minutesOf(time) === null
    ? { path, rule: 'time_invalid', message: 'must be a 24-hour time HH:MM, e.g. 09:30' }
    : null;
}

/** Every problem of a weekly slot list: its zone, each day and time, and slots given twice. */
export function weeklyScheduleProblems(
  input: { timezone: string; slots: readonly { day: string; time: string }[] },
  prefix: string,
): ScheduleProblem[] {
  const problems: ScheduleProblem[] = [];
  const zone = timeZoneProblem(input.timezone, `${prefix}/timezone`);
  if (zone !== null) problems.push(zone);
  const seen = new Set<string>();
  input.slots.forEach((slot, index) => {
    const day = dayProblem(slot.day, `${prefix}/slots/${index}/day`);
    const time = timeProblem(slot.time, `${prefix}/slots/${index}/time`);
    if (day !== null) problems.push(day);
    if (time !== null) problems.push(time);
    const key = `${slot.day} ${slot.time}`;
    if (day === null && time === null && seen.has(key))
      problems.push({ path: `${prefix}/slots/${index}`, rule: 'slot_duplicate', message: `${key} is listed twice` });
    seen.add(key);
  });
  return problems;
}
