import { conflict, notFound } from '@svc/errors';
import type { DraftsRepository } from '../data/drafts.repository.ts';
import type { JobsRepository } from '../data/jobs.repository.ts';

/** Deletes a draft (nothing of it was sent or counted); any other post answers 409. */
export async function deleteDraft(
  deps: { drafts: DraftsRepository; jobs: JobsRepository },
  orgId: string,
  jobId: string,
): Promise<{ deleted: true }> {
  if (await deps.drafts.delete(orgId, jobId)) return { deleted: true };
  const job = await deps.jobs.find(orgId, jobId);
  if (job === null) throw notFound(`The post ${jobId}`);
  throw conflict(`The post ${jobId} is ${job.status}; only a draft can be deleted (cancel a scheduled post instead).`);
}
