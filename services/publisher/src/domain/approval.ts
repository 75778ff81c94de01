import type { PayloadOf, PostViewType, publisherApprovalDecide } from '@svc/contracts';
import { conflict, notFound } from '@svc/errors';
import { isUuid, type JobsRepository } from '../data/jobs.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { toPostView, type JobWithDeliveries } from './post-view.ts';

export interface ApprovalDeps {
  db: PrismaClient;
  jobs: JobsRepository;
}

async function current(deps: ApprovalDeps, orgId: string, jobId: string): Promise<JobWithDeliveries> {
  const job = isUuid(jobId) ? await deps.jobs.find(orgId, jobId) : null;
  if (job === null) throw notFound(`The post ${jobId}`);
  return job;
}

/**
 * Asks for a draft's approval: `pending`, any earlier decision cleared. From then on the draft is
 * published only once approved (publish answers 409 `approval_required` before).
 */
export async function requestApproval(deps: ApprovalDeps, orgId: string, jobId: string): Promise<PostViewType> {
  const job = await current(deps, orgId, jobId);
  const { count } = await deps.db.job.updateMany({
    where: { id: job.id, orgId, status: 'draft' },
    data: {
      approvalStatus: 'pending',
      approvalRequestedAt: new Date(),
      approvalDecidedAt: null,
      approvalDecidedVia: null,
      approvalDecidedBy: null,
      approvalComment: null,
    },
  });
  if (count === 0) throw conflict(`The post ${jobId} is ${job.status}; only a draft can be sent for approval.`);
  return toPostView(await current(deps, orgId, jobId));
}

/**
 * Records a decision on a pending approval, by one UPDATE conditional on the draft still pending
 * (and, through a review link, still at the version the link was signed for): of two decisions, or a
 * decision and an edit, racing, one wins and the other gets 409.
 */
export async function decideApproval(
  deps: ApprovalDeps,
  orgId: string,
  input: PayloadOf<typeof publisherApprovalDecide>,
): Promise<PostViewType> {
  const job = await current(deps, orgId, input.job_id);
  if (job.status !== 'draft' || job.approvalStatus !== 'pending')
    throw conflict(`The post ${input.job_id} has no approval pending (status ${job.status}).`);
  if (input.version !== undefined && input.version !== job.version)
    throw conflict(`The draft ${input.job_id} was edited since this review link was made; ask for a new link.`);
  const { count } = await deps.db.job.updateMany({
    where: {
      id: job.id,
      orgId,
      status: 'draft',
      approvalStatus: 'pending',
      ...(input.version === undefined ? {} : { version: input.version }),
    },
    data: {
      approvalStatus: input.decision === 'approve' ? 'approved' : 'changes_requested',
      approvalDecidedAt: new Date(),
      approvalDecidedVia: input.via,
      approvalDecidedBy: input.by,
      approvalComment: input.comment ?? null,
    },
  });
  if (count === 0) throw conflict(`The draft ${input.job_id} changed while it was being reviewed; look at it again.`);
  return toPostView(await current(deps, orgId, input.job_id));
}
