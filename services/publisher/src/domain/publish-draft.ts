import type { PostViewType } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import { AppError, conflict, notFound, validationError } from '@svc/errors';
import type { MediaRow } from '../data/media.repository.ts';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';
import { checkJob } from './check-job.ts';
import { checkDeps } from './create-job.ts';
import type { DraftDeps } from './create-draft.ts';
import { requestOf, staleVersion, storedDraft } from './draft-request.ts';
import { importingMedia } from './job-media.ts';
import { prepareJob } from './new-job-row.ts';
import { toPostView } from './post-view.ts';
import { planLimitReached } from './post-quota.ts';
import { carryQueuedEvents } from './queued-events.ts';

export interface PublishDraftDeps extends DraftDeps {
  limits: PlanLimitsRepository;
  deliveryRunBatches?: boolean;
  wake: () => void;
  /** The transaction's limit, waits for the organization's usage row included (as cancel's). */
  transactionTimeoutMs: number;
}

export interface PublishDraftInput {
  orgId: string;
  requestId: string | null;
  jobId: string;
  version: number | undefined;
  /** Replaces the draft's own `scheduled_at` when given. */
  scheduledAt: string | undefined;
}

/** Thrown inside the transaction to roll it back with the usage it saw. */
class NoUnitLeft extends Error {}

/**
 * Sends a draft as create would send the same post: checked again (accounts, per-network rules, the
 * schedule against the database clock), its media URLs imported, then in ONE transaction the draft
 * row becomes the job (conditional on it still being a draft at the version checked), one unit of
 * the month is taken (402 `plan_limit_reached` rolls it all back: the draft stays), its deliveries
 * and the outbox messages of its first step (post.queued and delivery commands, or the scheduler's
 * command) are written. Of two publishes of one draft, the second finds no draft: 409.
 */
export async function publishDraft(deps: PublishDraftDeps, input: PublishDraftInput): Promise<PostViewType> {
  const job = await deps.jobs.find(input.orgId, input.jobId);
  if (job === null) throw notFound(`The post ${input.jobId}`);
  if (job.status !== 'draft')
    throw conflict(`The post ${input.jobId} is ${job.status}; only a draft can be published.`);
  if (input.version !== undefined && input.version !== job.version) throw staleVersion(input.jobId, input.version);
  if (job.approvalStatus !== null && job.approvalStatus !== 'approved')
    throw new AppError(
      'conflict',
      `The draft ${input.jobId} needs approval before it is published (rule approval_required; approval is ${job.approvalStatus}).`,
      { details: [{ path: '/approval/status', rule: 'approval_required', message: `is ${job.approvalStatus}` }] },
    );
  const draft = storedDraft(job.draft);
  const payload = input.scheduledAt === undefined ? draft : { ...draft, scheduled_at: input.scheduledAt };
  const request = requestOf(input.orgId, input.requestId, payload);
  let rows: MediaRow[] = [];
  const checked = await checkJob(
    checkDeps(deps),
    request,
    importingMedia(deps.media, deps.mediaPublicBaseUrl, (imported) => (rows = imported)),
  );
  if (checked.problems.length > 0)
    throw validationError('The draft cannot be published to every target account as it stands.', checked.problems);
  const { row } = prepareJob(
    request,
    {
      jobId: input.jobId,
      accounts: checked.accounts,
      scheduledAt: checked.scheduledAt,
      mediaIds: rows.map((medium) => medium.id),
    },
    deps.deliveryRunBatches,
  );
  try {
    await deps.db.$transaction(
      async (tx) => {
        const sent = await deps.drafts.send(tx, input.orgId, input.jobId, job.version, {
          status: row.status,
          text: row.text,
          mediaUrls: row.mediaUrls,
          mediaIds: row.mediaIds,
          providers: row.providers,
          scheduledAt: row.scheduledAt,
          thread: row.thread,
          approvalStatus: job.approvalStatus,
        });
        if (!sent) throw conflict(`The draft ${input.jobId} was changed, published or deleted meanwhile.`);
        if (!(await deps.limits.take(input.orgId, tx))) throw new NoUnitLeft();
        await tx.delivery.createMany({
          data: row.deliveries.map((delivery) => ({
            id: delivery.id,
            jobId: input.jobId,
            orgId: input.orgId,
            accountId: delivery.accountId,
            provider: delivery.provider,
            position: delivery.position,
            status: 'pending',
          })),
        });
        await enqueueOutbox(tx, [
          ...carryQueuedEvents(row.queued === null ? [] : [row.queued]),
          ...row.envelopes,
          ...row.deliveryCommands,
        ]);
      },
      { timeout: deps.transactionTimeoutMs, maxWait: deps.transactionTimeoutMs },
    );
  } catch (error) {
    if (!(error instanceof NoUnitLeft)) throw error;
    const usage = await deps.limits.usage(input.orgId);
    throw planLimitReached(usage.plan, usage.used, usage.limit);
  }
  deps.wake();
  const sent = await deps.jobs.find(input.orgId, input.jobId);
  if (sent === null) throw new AppError('internal_error', `The post ${input.jobId} vanished after it was published.`);
  return toPostView(sent);
}
