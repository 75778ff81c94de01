import type { RequestBody } from '@svc/sdk';
import { isClockTime, weekdayIndex, type Weekday } from '../../components/weekdays.ts';
import { wallTimeToUtc } from './schedule-time.ts';

export type RecurrenceBody = NonNullable<RequestBody<'createPost'>['recurrence']>;

/** "Repeat weekly" as the form holds it: the end is never, a last day, or a number of posts. */
export interface RecurrenceForm {
  days: Weekday[];
  time: string;
  end: 'never' | 'until' | 'count';
  /** `YYYY-MM-DD`, the last day (in the user's zone) a post may go out. */
  until: string;
  count: number | '';
}

export const emptyRecurrence = (): RecurrenceForm => ({ days: [], time: '09:00', end: 'never', until: '', count: '' });

/** What the form lacks before it can be sent, by field; the API checks the rest (a past until...). */
export function recurrenceProblems(form: RecurrenceForm): Partial<Record<'days' | 'time' | 'end', string>> {
  const problems: Partial<Record<'days' | 'time' | 'end', string>> = {};
  if (form.days.length === 0) problems.days = 'Choose at least one day.';
  if (!isClockTime(form.time)) problems.time = 'Choose a time.';
  if (form.end === 'until' && !/^\d{4}-\d{2}-\d{2}$/.test(form.until)) problems.end = 'Choose the last day.';
  if (form.end === 'count' && form.count === '') problems.end = 'Say how many posts.';
  return problems;
}

/**
 * The API's `recurrence` from the form, in the user's time zone: the days in week order, and an
 * until day taken as its last minute there (the API reads `until` as an instant, "no occurrence
 * after", so a post at 23:30 on that day still goes out).
 */
export function recurrenceBody(form: RecurrenceForm, timeZone: string): RecurrenceBody {
  const days = [...new Set(form.days)].sort((a, b) => weekdayIndex(a) - weekdayIndex(b));
  return {
    freq: 'weekly',
    days,
    time: form.time,
    timezone: timeZone,
    ...(form.end === 'until' && form.until !== ''
      ? { until: wallTimeToUtc(`${form.until}T23:59`, timeZone).toISOString() }
      : {}),
    ...(form.end === 'count' && form.count !== '' ? { count: form.count } : {}),
  };
}
