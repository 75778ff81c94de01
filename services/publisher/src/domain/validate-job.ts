import type { ReplyOf, publisherJobValidate } from '@svc/contracts';
import { checkJob, type JobRequest } from './check-job.ts';
import { checkDeps, type CreateJobDeps } from './create-job.ts';
import { probingMedia } from './job-media.ts';

export interface ValidateJobDeps extends CreateJobDeps {
  /** Bytes read of each media URL at most (MEDIA_VERIFY_HEAD_BYTES), as `POST /v1/media/verify` does. */
  verifyHeadBytes: number;
}

/**
 * Every problem create would answer for this post, without creating anything: no job, no import
 * (media URLs are read like `POST /v1/media/verify`, nothing stored), no quota, no idempotency record.
 */
export async function validateJob(
  deps: ValidateJobDeps,
  request: JobRequest,
): Promise<ReplyOf<typeof publisherJobValidate>> {
  const { problems } = await checkJob(
    checkDeps(deps),
    request,
    probingMedia({ ...deps.media, verifyHeadBytes: deps.verifyHeadBytes }, deps.mediaPublicBaseUrl),
  );
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
