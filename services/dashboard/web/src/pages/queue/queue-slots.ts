import type { RequestBody } from '@svc/sdk';
import { isClockTime, weekdayIndex, WEEKDAYS, type Weekday } from '../../components/weekdays.ts';

export type Slot = RequestBody<'setQueue'>['slots'][number];

/** Slots in week order (Monday first), then by time. */
export function sortSlots(slots: readonly Slot[]): Slot[] {
  return [...slots].sort((a, b) => weekdayIndex(a.day) - weekdayIndex(b.day) || a.time.localeCompare(b.time));
}

/** The slots with one more, kept in order; or why it cannot be added (the API refuses a repeat too). */
export function addSlot(slots: readonly Slot[], slot: Slot): { slots: Slot[] } | { problem: string } {
  if (!isClockTime(slot.time)) return { problem: 'Choose a time.' };
  if (slots.some((s) => s.day === slot.day && s.time === slot.time))
    return { problem: 'That day and time is already in the queue.' };
  return { slots: sortSlots([...slots, slot]) };
}

export const removeSlot = (slots: readonly Slot[], slot: Slot): Slot[] =>
  slots.filter((s) => s.day !== slot.day || s.time !== slot.time);

/** Each day of the week with its times, in order; days without a time are left out. */
export function slotsByDay(slots: readonly Slot[]): { day: Weekday; label: string; times: string[] }[] {
  const sorted = sortSlots(slots);
  return WEEKDAYS.map(({ value, label }) => ({
    day: value,
    label,
    times: sorted.filter((s) => s.day === value).map((s) => s.time),
  })).filter((d) => d.times.length > 0);
}

/** Where an API problem with the queue belongs: the time zone field or the slots. */
export function queueFieldOf(path: string | undefined): 'timezone' | 'slots' {
  return /^(\/body)?\/timezone/.test(path ?? '') ? 'timezone' : 'slots';
}
