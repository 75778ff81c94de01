import type { QueueViewType } from '@svc/contracts';
import { canonicalTimeZone, weeklyScheduleProblems } from '@svc/calendar';
import { notFound, validationError } from '@svc/errors';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { databaseNow } from '../data/database-clock.ts';
import { findQueue, heldTimes, saveQueue, type QueueRow } from '../data/queue.repository.ts';
import { freeTimes, horizonEnd } from './queue-times.ts';

export interface QueueSettingsDeps {
  db: PrismaClient;
  /** SCHEDULE_MIN_LEAD_SECONDS: a queued post's time is at least this far ahead, like any scheduled one. */
  minLeadSeconds: number;
}

/** Replaces the organization's queue after checking its zone, days and times (400 naming each problem). */
export async function setQueue(
  deps: QueueSettingsDeps,
  orgId: string,
  input: { timezone: string; slots: { day: string; time: string }[] },
): Promise<QueueViewType> {
  const problems = weeklyScheduleProblems(input, '/body');
  if (problems.length > 0)
    throw validationError(
      'The queue cannot be saved as it stands.',
      problems.map((problem) => ({ ...problem })),
    );
  // Stored under the zone's canonical spelling (`europe/berlin` -> `Europe/Berlin`).
  const timezone = canonicalTimeZone(input.timezone) ?? input.timezone;
  const [row] = await saveQueue(deps.db, orgId, timezone, input.slots);
  if (row === undefined) throw new Error('saving the queue returned no row');
  return view(deps, orgId, row);
}

export async function getQueue(deps: QueueSettingsDeps, orgId: string): Promise<QueueViewType> {
  const row = await findQueue(deps.db, orgId);
  if (row === null) throw notFound('The queue of this organization');
  return view(deps, orgId, row);
}

/** The queue with the next times no post of the organization holds, from where a queued post would start. */
async function view(deps: QueueSettingsDeps, orgId: string, row: QueueRow): Promise<QueueViewType> {
  const now = (await databaseNow(deps.db)) ?? new Date();
  const from = new Date(now.getTime() + deps.minLeadSeconds * 1000);
  const held = new Set(await heldTimes(deps.db, orgId, null, from, horizonEnd(from)));
  return {
    timezone: row.timezone,
    slots: row.slots,
    next_slots: freeTimes(row, from, held).map((at) => at.toISOString()),
    updated_at: row.updated_at.toISOString(),
  };
}
