import { QUEUE_NEXT_SLOTS } from '@svc/contracts';
import { weeklyOccurrences, type WeeklySchedule } from '@svc/calendar';
import { AppError } from '@svc/errors';
import type { QueueRow } from '../data/queue.repository.ts';

/** How far ahead a queued post looks for a free time: two years of the calendar. */
export const QUEUE_HORIZON_DAYS = 731;

/** The queue's times after `from` (exclusive) that `held` does not contain, up to `count`, within the horizon. */
export function freeTimes(queue: QueueRow, from: Date, held: ReadonlySet<number>, count = QUEUE_NEXT_SLOTS): Date[] {
  const free: Date[] = [];
  // Stored by setQueue after validation: days and times are the calendar's.
  const schedule = { timezone: queue.timezone, slots: queue.slots } as WeeklySchedule;
  for (const at of weeklyOccurrences(schedule, from, QUEUE_HORIZON_DAYS)) {
    if (held.has(at.getTime())) continue;
    free.push(at);
    if (free.length >= count) break;
  }
  return free;
}

export const horizonEnd = (from: Date): Date => new Date(from.getTime() + QUEUE_HORIZON_DAYS * 24 * 3600 * 1000);

/** 409: `queue: true` for an organization that set no queue (`PUT /v1/queue`). */
export function queueNotConfigured(): AppError {
  return new AppError('conflict', 'This organization has no posting queue; set one with PUT /v1/queue first.', {
    details: [{ path: '/body/queue', rule: 'queue_not_configured', message: 'no queue is set for the organization' }],
  });
}

/** 409: every queue time of the next two years is taken for some target account (or the queue has none). */
export function queueFull(): AppError {
  return new AppError(
    'conflict',
    'The queue has no time free for every target account within the next two years; add times with PUT /v1/queue or schedule the post with scheduled_at.',
    { details: [{ path: '/body/queue', rule: 'queue_full', message: 'no free queue time within two years' }] },
  );
}
