import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export type RecurrenceRow = Prisma.RecurrenceGetPayload<object>;

/** Recurrences extended in one pass of the loop at most; the next pass takes the rest. */
const EXTEND_BATCH = 200;

export function findRecurrence(db: PrismaClient, orgId: string, id: string): Promise<RecurrenceRow | null> {
  return db.recurrence.findFirst({ where: { id, orgId } });
}

/** Stores a new recurrence; a retry of the same idempotent create finds it there and changes nothing. */
export async function insertRecurrence(
  db: PrismaClient,
  row: { id: string; orgId: string; body: Prisma.InputJsonValue; rule: Prisma.InputJsonValue },
): Promise<void> {
  await db.recurrence.createMany({ data: [row], skipDuplicates: true });
}

/** Undoes a recurrence whose first occurrence was refused (nothing of it exists). */
export async function deleteUnstartedRecurrence(db: PrismaClient, id: string): Promise<void> {
  await db.recurrence.deleteMany({ where: { id, occurrencesCreated: 0 } });
}

/** Records the first occurrence and the post's body as later occurrences repeat it. */
export async function startRecurrence(
  db: PrismaClient,
  id: string,
  body: Prisma.InputJsonValue,
  firstAt: Date,
): Promise<void> {
  await db.recurrence.updateMany({
    where: { id, occurrencesCreated: 0 },
    data: { body, lastOccurrenceAt: firstAt, occurrencesCreated: 1 },
  });
}

/**
 * Moves the recurrence's cursor past one more occurrence. Conditional on the cursor being before
 * it, so two processes creating the same occurrence count it once.
 */
export async function advanceRecurrence(db: PrismaClient, id: string, at: Date): Promise<void> {
  await db.recurrence.updateMany({
    where: { id, lastOccurrenceAt: { lt: at } },
    data: { lastOccurrenceAt: at, occurrencesCreated: { increment: 1 } },
  });
}

/** Running recurrences whose first occurrence exists, the least advanced first. */
export function activeRecurrences(db: PrismaClient): Promise<RecurrenceRow[]> {
  return db.recurrence.findMany({
    where: { cancelledAt: null, occurrencesCreated: { gt: 0 } },
    orderBy: { lastOccurrenceAt: 'asc' },
    take: EXTEND_BATCH,
  });
}

/** Marks the recurrence cancelled (once); false when it is not the organization's. */
export async function cancelRecurrenceRow(db: PrismaClient, orgId: string, id: string): Promise<boolean> {
  await db.recurrence.updateMany({ where: { id, orgId, cancelledAt: null }, data: { cancelledAt: new Date() } });
  return (await db.recurrence.count({ where: { id, orgId } })) > 0;
}

/**
 * The organization's recurrences not cancelled whose body posts the media (`media_ids`, or a thread
 * part's), for the media's delete: their later occurrences are created from that body.
 */
export async function uncancelledRecurrencesUsingMedia(
  db: PrismaClient,
  orgId: string,
  mediaId: string,
): Promise<RecurrenceRow[]> {
  const ids = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text AS id FROM recurrences
      WHERE org_id = $1 AND cancelled_at IS NULL AND occurrences_created > 0
        AND (body->'media_ids' ? $2
             OR (jsonb_typeof(body->'thread') = 'array'
                 AND EXISTS (SELECT 1 FROM jsonb_array_elements(body->'thread') AS part WHERE part->'media_ids' ? $2)))`,
    orgId,
    mediaId,
  );
  if (ids.length === 0) return [];
  return db.recurrence.findMany({ where: { id: { in: ids.map((row) => row.id) } }, orderBy: { createdAt: 'asc' } });
}

export async function isCancelled(db: PrismaClient, id: string): Promise<boolean> {
  return (await db.recurrence.count({ where: { id, cancelledAt: { not: null } } })) > 0;
}

/** The recurrence's occurrences still scheduled, soonest first. */
export function scheduledOccurrences(
  db: PrismaClient,
  orgId: string,
  recurrenceId: string,
): Promise<{ id: string; scheduledAt: Date | null }[]> {
  return db.job.findMany({
    where: { orgId, recurrenceId, status: 'scheduled' },
    select: { id: true, scheduledAt: true },
    orderBy: { scheduledAt: 'asc' },
  });
}

/**
 * An occurrence that could not be scheduled (the plan's monthly posts used up, an account gone),
 * stored as a failed post with the reason on every target, so it shows in the history. The
 * occurrence's derived id makes a second recording a no-op. `announce` runs in the same
 * transaction, only when this call stored it (so its event is sent once).
 */
export async function insertFailedOccurrence(
  db: PrismaClient,
  announce: (tx: Prisma.TransactionClient, jobId: string) => Promise<void>,
  job: {
    id: string;
    orgId: string;
    recurrenceId: string;
    text: string;
    scheduledAt: Date;
    accounts: { accountId: string; provider: string; id: string }[];
    errorCode: string;
    errorMessage: string;
  },
): Promise<void> {
  const now = new Date();
  await db.$transaction(async (tx) => {
    const inserted = await tx.job.createMany({
      data: [
        {
          id: job.id,
          orgId: job.orgId,
          status: 'failed',
          text: job.text,
          accountIds: job.accounts.map((account) => account.accountId),
          providers: [...new Set(job.accounts.map((account) => account.provider))],
          scheduledAt: job.scheduledAt,
          recurrenceId: job.recurrenceId,
          finishedAt: now,
          finishedDeliveries: job.accounts.length,
        },
      ],
      skipDuplicates: true,
    });
    if (inserted.count === 0) return;
    await tx.delivery.createMany({
      data: job.accounts.map((account, position) => ({
        id: account.id,
        jobId: job.id,
        orgId: job.orgId,
        accountId: account.accountId,
        provider: account.provider,
        position,
        status: 'failed',
        errorCode: job.errorCode,
        errorMessage: job.errorMessage,
        finishedAt: now,
      })),
    });
    await announce(tx, job.id);
  });
}
