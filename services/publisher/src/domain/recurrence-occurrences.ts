import { createEnvelope, newId, postFailed, type RecurrenceRuleType } from '@svc/contracts';
import { enqueueOutbox, type RawSql } from '@svc/db';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { databaseNow } from '../data/database-clock.ts';
import { readFinishedJobs } from '../data/finished-job.ts';
import {
  activeRecurrences,
  advanceRecurrence,
  insertFailedOccurrence,
  isCancelled,
  type RecurrenceRow,
} from '../data/recurrences.repository.ts';
import { cancelJob, type CancelJobDeps } from './cancel-job.ts';
import { toEventPayload } from './post-view.ts';
import { createJob, type CreateJobDeps } from './create-job.ts';
import { occurrenceId, occurrencesAfter } from './recurrence-rule.ts';
import { occurrenceRequest, type RecurrenceTemplate } from './recurrence-template.ts';

export interface ExtendRecurrencesDeps {
  create: CreateJobDeps;
  cancel: CancelJobDeps;
  /** RECURRENCE_HORIZON_HOURS: occurrences are created this far ahead of the database clock. */
  horizonHours: number;
}

/** Occurrences one recurrence gets per pass at most (a short rule's horizon stays a few jobs). */
const PER_PASS = 50;

/**
 * Creates the occurrences of every running recurrence that fall within the horizon, each an
 * ordinary scheduled job with `recurrence_id`. Each occurrence's job id is derived from (recurrence,
 * time), so processes running this at once, or one restarted halfway, store it once (the jobs key;
 * a create that loses the race answers the stored job). An occurrence refused when created (the
 * plan's monthly posts used up, an account gone) is stored as a failed post naming the reason,
 * announced as post.failed. A time that passed while no publisher ran is skipped, not posted
 * late. Returns the occurrences created or recorded.
 */
export async function extendRecurrences(deps: ExtendRecurrencesDeps): Promise<number> {
  let made = 0;
  for (const row of await activeRecurrences(deps.create.db)) made += await extendRecurrence(deps, row);
  return made;
}

async function extendRecurrence(deps: ExtendRecurrencesDeps, row: RecurrenceRow): Promise<number> {
  const { db, minLeadSeconds } = deps.create;
  const now = (await databaseNow(db)) ?? new Date();
  const rule = row.rule as unknown as RecurrenceRuleType;
  const body = row.body as unknown as RecurrenceTemplate;
  const times = occurrencesAfter(rule, row.lastOccurrenceAt ?? row.createdAt, {
    end: new Date(now.getTime() + deps.horizonHours * 3600_000),
    limit: PER_PASS,
    alreadyCreated: row.occurrencesCreated,
  });
  let made = 0;
  for (const at of times) {
    if (await isCancelled(db, row.id)) break;
    if (at.getTime() >= now.getTime() + minLeadSeconds * 1000) {
      await createOccurrence(deps, row, body, at);
      made++;
    }
    await advanceRecurrence(db, row.id, at);
  }
  return made;
}

async function createOccurrence(
  deps: ExtendRecurrencesDeps,
  row: RecurrenceRow,
  body: RecurrenceTemplate,
  at: Date,
): Promise<void> {
  const jobId = occurrenceId(row.id, at);
  try {
    await createJob(deps.create, { ...occurrenceRequest(row.orgId, row.id, body, at), jobId });
  } catch (error) {
    if (!(error instanceof AppError) || error.retryable || error.status >= 500) throw error;
    await insertFailedOccurrence(deps.create.db, announceFailed, {
      id: jobId,
      orgId: row.orgId,
      recurrenceId: row.id,
      text: body.text ?? body.thread?.[0]?.text ?? '',
      scheduledAt: at,
      accounts: body.account_ids.map((accountId) => ({
        id: newId(),
        accountId,
        provider: body.providers[accountId] ?? 'unknown',
      })),
      errorCode: error.code,
      errorMessage: refusalOf(error),
    });
    return;
  }
  // Cancelled while this occurrence was being created: the cancel may not have seen it.
  if (await isCancelled(deps.create.db, row.id))
    await cancelJob(deps.cancel, row.orgId, jobId, null).catch(() => undefined);
}

/**
 * The refusal as the failed occurrence's message: with each problem a validation names (say the
 * media it posts, gone from the library), so the history says what to fix, not only that it failed.
 */
function refusalOf(error: AppError): string {
  const problems = (error.details ?? []).map((detail) => `${detail.path ?? '/body'}: ${detail.message}`);
  return problems.length === 0 ? error.message : `${error.message} ${problems.join('; ')}`;
}

/** A refused occurrence is a failed post like any other: post.failed, through the outbox, with its refusal. */
async function announceFailed(tx: RawSql, jobId: string): Promise<void> {
  const [job] = await readFinishedJobs(tx, [jobId]);
  if (job === undefined) return;
  await enqueueOutbox(tx, [
    createEnvelope(postFailed, toEventPayload(job), { orgId: job.orgId, requestId: job.requestId }),
  ]);
}

/** Runs extendRecurrences every `intervalMs` (0: never) in the accepting process. */
export class RecurrenceLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly deps: ExtendRecurrencesDeps,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    if (this.intervalMs === 0) return;
    this.timer = setInterval(() => {
      this.running ??= extendRecurrences(this.deps)
        .catch((error: unknown) => this.logger.error({ err: error }, 'extending recurrences failed; next pass'))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
