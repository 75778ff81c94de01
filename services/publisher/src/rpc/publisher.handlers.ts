import {
  newId,
  publisherDraftDelete,
  publisherDraftPublish,
  publisherDraftUpdate,
  publisherJobRetry,
  publisherApprovalDecide,
  publisherApprovalRequest,
  publisherJobBulkCreate,
  publisherJobBulkValidate,
  publisherJobCancel,
  publisherJobCreate,
  publisherJobGet,
  publisherJobList,
  publisherJobValidate,
  publisherStats,
  publisherUsage,
  type Envelope,
  type PayloadOf,
  type RpcHandlers,
} from '@svc/contracts';
import { decodeKeysetCursor, encodeKeysetCursor } from '@svc/db';
import { AppError, notFound } from '@svc/errors';
import type { JobsRepository } from '../data/jobs.repository.ts';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';
import { cancelJob } from '../domain/cancel-job.ts';
import type { JobRequest } from '../domain/check-job.ts';
import { createBulk } from '../domain/create-bulk.ts';
import { createJob, type CreateJobDeps } from '../domain/create-job.ts';
import { createRecurring } from '../domain/create-recurring.ts';
import { toPostView } from '../domain/post-view.ts';
import { validateBulk } from '../domain/validate-bulk.ts';
import { validateJob } from '../domain/validate-job.ts';
import type { NewJobRow, StoreOutcome } from '../data/accept.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { DraftsRepository } from '../data/drafts.repository.ts';
import { decideApproval, requestApproval } from '../domain/approval.ts';
import { createDraft } from '../domain/create-draft.ts';
import { deleteDraft } from '../domain/delete-draft.ts';
import { requestOf } from '../domain/draft-request.ts';
import { publishDraft } from '../domain/publish-draft.ts';
import { retryJob } from '../domain/retry-job.ts';
import { updateDraft } from '../domain/update-draft.ts';

export const publisherRpc = [
  publisherJobCreate,
  publisherJobValidate,
  publisherJobBulkCreate,
  publisherJobBulkValidate,
  publisherJobCancel,
  publisherJobGet,
  publisherJobList,
  publisherStats,
  publisherUsage,
  publisherDraftUpdate,
  publisherDraftPublish,
  publisherDraftDelete,
  publisherJobRetry,
  publisherApprovalRequest,
  publisherApprovalDecide,
] as const;

export interface PublisherRpcDeps {
  db: PrismaClient;
  jobs: JobsRepository;
  limits: PlanLimitsRepository;
  drafts: DraftsRepository;
  create: CreateJobDeps;
  /** Stores a bulk's jobs in one statement, all or none against the monthly posts limit. */
  storeWhole: (jobs: NewJobRow[]) => Promise<StoreOutcome[]>;
  /** Bytes validation reads of each media URL at most (MEDIA_VERIFY_HEAD_BYTES). */
  verifyHeadBytes: number;
  wake: () => void;
  /** The cancel's transaction limit (domain/cancel-job.ts). */
  transactionTimeoutMs: number;
}

function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

/** A create body as the checks take it (one post, or one row of a bulk). */
function jobRequest(env: Envelope, post: Omit<PayloadOf<typeof publisherJobCreate>, 'job_id'>): JobRequest {
  return requestOf(orgOf(env), env.request_id, post);
}

export function publisherRpcHandlers(deps: PublisherRpcDeps): RpcHandlers<typeof publisherRpc> {
  const draftDeps = {
    ...deps.create,
    verifyHeadBytes: deps.verifyHeadBytes,
    drafts: deps.drafts,
    jobs: deps.jobs,
  };
  const sendDeps = {
    ...draftDeps,
    limits: deps.limits,
    wake: deps.wake,
    transactionTimeoutMs: deps.transactionTimeoutMs,
  };
  return {
    'publisher.job_create.v1': (env) => {
      const { job_id: jobId, draft, recurrence, ...payload } = env.payload;
      // Before the draft: a recurrence refuses one (recurrence_with_draft) among its other checks.
      if (recurrence !== undefined)
        return createRecurring(deps.create, { jobId, ...jobRequest(env, payload), recurrence, draft });
      if (draft === true)
        return createDraft(draftDeps, {
          orgId: orgOf(env),
          requestId: env.request_id,
          jobId: jobId ?? newId(),
          idempotent: jobId !== undefined,
          payload,
        });
      return createJob(deps.create, { jobId, ...jobRequest(env, payload) });
    },

    'publisher.draft_update.v1': (env) =>
      updateDraft(draftDeps, {
        orgId: orgOf(env),
        requestId: env.request_id,
        jobId: env.payload.job_id,
        version: env.payload.version,
        changes: env.payload.changes,
        optionsField: env.payload.options_field,
      }),

    'publisher.draft_publish.v1': (env) =>
      publishDraft(sendDeps, {
        orgId: orgOf(env),
        requestId: env.request_id,
        jobId: env.payload.job_id,
        version: env.payload.version,
        scheduledAt: env.payload.scheduled_at,
      }),

    'publisher.draft_delete.v1': (env) => deleteDraft(deps, orgOf(env), env.payload.job_id),

    'publisher.approval_request.v1': (env) => requestApproval(deps, orgOf(env), env.payload.job_id),

    'publisher.approval_decide.v1': (env) => decideApproval(deps, orgOf(env), env.payload),

    'publisher.job_retry.v1': (env) => retryJob(sendDeps, orgOf(env), env.payload.job_id, env.request_id),

    'publisher.job_validate.v1': (env) => {
      const { draft, recurrence, ...payload } = env.payload;
      return validateJob(
        { ...deps.create, verifyHeadBytes: deps.verifyHeadBytes },
        jobRequest(env, payload),
        recurrence === undefined ? undefined : { rule: recurrence, draft },
      );
    },

    'publisher.job_bulk_create.v1': (env) =>
      createBulk(
        { ...deps.create, verifyHeadBytes: deps.verifyHeadBytes, storeWhole: deps.storeWhole },
        {
          orgId: orgOf(env),
          requestId: env.request_id,
          operationId: env.payload.operation_id,
          requests: env.payload.posts.map((post) => jobRequest(env, post)),
        },
      ),

    'publisher.job_bulk_validate.v1': (env) =>
      validateBulk(
        { ...deps.create, verifyHeadBytes: deps.verifyHeadBytes },
        env.payload.posts.map((post) => jobRequest(env, post)),
      ),

    'publisher.job_cancel.v1': (env) =>
      cancelJob(
        {
          db: deps.db,
          jobs: deps.jobs,
          limits: deps.limits,
          wake: deps.wake,
          transactionTimeoutMs: deps.transactionTimeoutMs,
        },
        orgOf(env),
        env.payload.job_id,
        env.request_id,
      ),

    'publisher.job_get.v1': async (env) => {
      const job = await deps.jobs.find(orgOf(env), env.payload.job_id);
      if (job === null) throw notFound(`The post ${env.payload.job_id}`);
      return toPostView(job);
    },

    'publisher.job_list.v1': async (env) => {
      const { limit, cursor, status, provider, q } = env.payload;
      const { rows, total } = await deps.jobs.page({
        orgId: orgOf(env),
        status,
        provider,
        q,
        limit,
        after: cursor === undefined ? undefined : decodeKeysetCursor(cursor),
      });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map(toPostView),
        next_cursor: rows.length > limit && last !== undefined ? encodeKeysetCursor(last) : null,
        total,
      };
    },

    'publisher.stats.v1': (env) => deps.jobs.stats(orgOf(env)),

    'publisher.usage.v1': async (env) => {
      const usage = await deps.limits.usage(orgOf(env));
      return { used: usage.used, limit: usage.limit, period_start: usage.periodStart.toISOString() };
    },
  };
}
