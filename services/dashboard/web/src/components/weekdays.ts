import type { RequestBody } from '@svc/sdk';

/** A day of the week as the API names it (queue slots and recurrence rules share the names). */
export type Weekday = RequestBody<'setQueue'>['slots'][number]['day'];

/** The API's days, Monday first, with the names the pages show. */
export const WEEKDAYS: readonly { value: Weekday; label: string }[] = [
  { value: 'mon', label: 'Monday' },
  { value: 'tue', label: 'Tuesday' },
  { value: 'wed', label: 'Wednesday' },
  { value: 'thu', label: 'Thursday' },
  { value: 'fri', label: 'Friday' },
  { value: 'sat', label: 'Saturday' },
  { value: 'sun', label: 'Sunday' },
];

export const weekdayIndex = (day: Weekday) => WEEKDAYS.findIndex((d) => d.value === day);
export const weekdayLabel = (day: Weekday) => WEEKDAYS[weekdayIndex(day)]?.label ?? day;

/** A wall-clock `HH:MM` (24 h), what the API's rules and slots take. */
export const isClockTime = (time: string) => /^([01][0-9]|2[0-3]):[0-5][0-9]$/.test(time);
