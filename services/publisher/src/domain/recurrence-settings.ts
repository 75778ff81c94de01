import { RECURRENCE_NEXT_TIMES, type RecurrenceRuleType, type RecurrenceViewType } from '@svc/contracts';
import { notFound } from '@svc/errors';
import { isUuid } from '../data/jobs.repository.ts';
import { databaseNow } from '../data/database-clock.ts';
import {
  cancelRecurrenceRow,
  findRecurrence,
  scheduledOccurrences,
  type RecurrenceRow,
} from '../data/recurrences.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { cancelJob, type CancelJobDeps } from './cancel-job.ts';
import { occurrencesAfter } from './recurrence-rule.ts';

/** The organization's recurrence with its coming times; 404 for an unknown id or another organization's. */
export async function getRecurrence(db: PrismaClient, orgId: string, id: string): Promise<RecurrenceViewType> {
  return view(db, await found(db, orgId, id));
}

/**
 * Stops the recurrence (no occurrence is created after this) and cancels its occurrences still
 * scheduled; those already queued or published stay. Cancelling twice changes nothing more.
 */
export async function cancelRecurrence(deps: CancelJobDeps, orgId: string, id: string): Promise<RecurrenceViewType> {
  if (!isUuid(id) || !(await cancelRecurrenceRow(deps.db, orgId, id))) throw notFound(`The recurrence ${id}`);
  for (const job of await scheduledOccurrences(deps.db, orgId, id))
    // One that fired meanwhile is no longer scheduled and stays (409 from the cancel).
    await cancelJob(deps, orgId, job.id, null).catch((error: unknown) => {
      if (!(error instanceof Error && 'code' in error && error.code === 'conflict')) throw error;
    });
  return view(deps.db, await found(deps.db, orgId, id));
}

async function found(db: PrismaClient, orgId: string, id: string): Promise<RecurrenceRow> {
  const row = isUuid(id) ? await findRecurrence(db, orgId, id) : null;
  if (row === null || row.occurrencesCreated === 0) throw notFound(`The recurrence ${id}`);
  return row;
}

/** Its coming times: the occurrences still scheduled, then the rule's times not created yet. */
async function view(db: PrismaClient, row: RecurrenceRow): Promise<RecurrenceViewType> {
  const rule = row.rule as unknown as RecurrenceRuleType;
  const now = (await databaseNow(db)) ?? new Date();
  const next: Date[] = [];
  if (row.cancelledAt === null) {
    for (const job of await scheduledOccurrences(db, row.orgId, row.id))
      if (job.scheduledAt !== null && job.scheduledAt > now) next.push(job.scheduledAt);
    const after = row.lastOccurrenceAt ?? row.createdAt;
    next.push(
      ...occurrencesAfter(rule, after, {
        end: null,
        limit: Math.max(0, RECURRENCE_NEXT_TIMES - next.length),
        alreadyCreated: row.occurrencesCreated,
      }),
    );
  }
  const status = row.cancelledAt !== null ? 'cancelled' : next.length === 0 ? 'finished' : 'active';
  return {
    id: row.id,
    rule,
    status,
    occurrences_created: row.occurrencesCreated,
    next_occurrences: next.slice(0, RECURRENCE_NEXT_TIMES).map((at) => at.toISOString()),
    created_at: row.createdAt.toISOString(),
    cancelled_at: row.cancelledAt?.toISOString() ?? null,
  };
}
