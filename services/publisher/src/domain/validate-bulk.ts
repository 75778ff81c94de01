import type { ReplyOf, publisherJobBulkValidate } from '@svc/contracts';
import type { JobRequest } from './check-job.ts';
import { checkBulk } from './check-bulk.ts';
import { checkDeps } from './create-job.ts';
import { probingMedia } from './job-media.ts';
import type { ValidateJobDeps } from './validate-job.ts';

/**
 * A bulk's dry run: every problem of every row that creating the bulk would refuse it for, creating
 * nothing (media URLs are read, not imported; no job, no quota, no idempotency record).
 */
export async function validateBulk(
  deps: ValidateJobDeps,
  requests: readonly JobRequest[],
): Promise<ReplyOf<typeof publisherJobBulkValidate>> {
  const media = probingMedia({ ...deps.media, verifyHeadBytes: deps.verifyHeadBytes }, deps.mediaPublicBaseUrl);
  const { problems } = await checkBulk(checkDeps(deps), requests, () => media);
  return { valid: problems.length === 0, problems };
}
