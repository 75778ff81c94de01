import { newId, type PostViewType, type RecurrenceRuleType } from '@svc/contracts';
import { validationError } from '@svc/errors';
import type { Prisma } from '../generated/prisma/client.ts';
import { databaseNow } from '../data/database-clock.ts';
import { deleteUnstartedRecurrence, insertRecurrence, startRecurrence } from '../data/recurrences.repository.ts';
import { createJob, type CreateJobDeps, type CreateJobInput } from './create-job.ts';
import { checkRecurrence, normalizedRule, occurrenceId, type RecurrenceCompanions } from './recurrence-rule.ts';
import { templateOf } from './recurrence-template.ts';

/**
 * A recurring post: the recurrence is stored, then its first occurrence is created at once as an
 * ordinary scheduled job (the answer); the later ones are created ahead by the extending loop
 * (domain/recurrence-occurrences.ts). A rule refused (domain/recurrence-rule.ts, checkRecurrence) or a
 * first occurrence refused (400, 402, ...) leaves nothing.
 * An idempotent create (a job id from the Idempotency-Key) names its recurrence by that id, so a
 * retry finds both again.
 */
export async function createRecurring(
  deps: CreateJobDeps,
  input: CreateJobInput & { recurrence: RecurrenceRuleType; draft?: RecurrenceCompanions['draft'] },
): Promise<PostViewType> {
  const now = (await databaseNow(deps.db)) ?? new Date();
  const from = new Date(now.getTime() + deps.minLeadSeconds * 1000);
  const { problems, first } = checkRecurrence(input.recurrence, input, now, from);
  if (problems.length > 0 || first === undefined)
    throw validationError('The recurrence cannot be created as it stands.', problems);
  const rule = normalizedRule(input.recurrence);
  const recurrenceId = input.jobId ?? newId();
  const { recurrence: _rule, draft: _draft, ...request } = input;
  await insertRecurrence(deps.db, {
    id: recurrenceId,
    orgId: input.orgId,
    body: {},
    rule: rule as unknown as Prisma.InputJsonValue,
  });
  let post: PostViewType;
  try {
    post = await createJob(deps, {
      ...request,
      jobId: occurrenceId(recurrenceId, first),
      scheduledAt: first.toISOString(),
      recurrenceId,
    });
  } catch (error) {
    await deleteUnstartedRecurrence(deps.db, recurrenceId).catch(() => undefined);
    throw error;
  }
  // Later occurrences repeat the first as stored: its URLs were imported into the library then.
  const job = await deps.db.job.findUnique({ where: { id: post.id }, include: { deliveries: true } });
  if (job !== null) await startRecurrence(deps.db, recurrenceId, templateOf(job, input), first);
  return post;
}
