import type { RecurrenceRuleType, ReplyOf, publisherJobValidate } from '@svc/contracts';
import { databaseNow } from '../data/database-clock.ts';
import { checkJob, type JobRequest } from './check-job.ts';
import { checkDeps, type CreateJobDeps } from './create-job.ts';
import { probingMedia } from './job-media.ts';
import { checkRecurrence } from './recurrence-rule.ts';

export interface ValidateJobDeps extends CreateJobDeps {
  /** Bytes read of each media URL at most (MEDIA_VERIFY_HEAD_BYTES), as `POST /v1/media/verify` does. */
  verifyHeadBytes: number;
}

/**
 * Every problem create would answer for this post, without creating anything: no job, no import
 * (media URLs are read like `POST /v1/media/verify`, nothing stored), no quota, no idempotency record.
 * A recurrence is checked as create checks it (domain/create-recurring.ts).
 */
export async function validateJob(
  deps: ValidateJobDeps,
  request: JobRequest,
  recurrence?: { rule: RecurrenceRuleType; draft: boolean | undefined },
): Promise<ReplyOf<typeof publisherJobValidate>> {
  const checked = await checkJob(
    checkDeps(deps),
    request,
    probingMedia({ ...deps.media, verifyHeadBytes: deps.verifyHeadBytes }, deps.mediaPublicBaseUrl),
  );
  const problems = [...checked.problems];
  if (recurrence !== undefined) {
    const now = (await databaseNow(deps.db)) ?? new Date();
    const from = new Date(now.getTime() + deps.minLeadSeconds * 1000);
    problems.push(...checkRecurrence(recurrence.rule, { ...request, draft: recurrence.draft }, now, from).problems);
  }
  return {
    valid: problems.length === 0,
    problems: problems.map((problem) => ({
      account_id: typeof problem.account_id === 'string' ? problem.account_id : null,
      path: problem.path ?? '/body',
      rule: typeof problem.rule === 'string' ? problem.rule : 'invalid',
      message: problem.message,
    })),
  };
}
