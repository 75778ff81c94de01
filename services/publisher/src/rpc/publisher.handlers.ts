import {
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
] as const;

export interface PublisherRpcDeps {
  db: PrismaClient;
  jobs: JobsRepository;
  limits: PlanLimitsRepository;
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
  return {
    orgId: orgOf(env),
    requestId: env.request_id,
    accountIds: post.account_ids,
    text: post.text,
    thread: post.thread?.map((part) => ({
      text: part.text,
      mediaUrls: part.media_urls ?? [],
      mediaIds: part.media_ids ?? [],
    })),
    mediaUrls: post.media_urls ?? [],
    mediaIds: post.media_ids ?? [],
    options: post.options ?? {},
    scheduledAt: post.scheduled_at,
    optionsField: post.options_field ?? 'provider_options',
    firstComment: post.first_comment?.text,
    queue: post.queue,
  };
}

export function publisherRpcHandlers(deps: PublisherRpcDeps): RpcHandlers<typeof publisherRpc> {
  return {
    'publisher.job_create.v1': (env) =>
      env.payload.recurrence === undefined
        ? createJob(deps.create, { jobId: env.payload.job_id, ...jobRequest(env, env.payload) })
        : createRecurring(deps.create, {
            jobId: env.payload.job_id,
            ...jobRequest(env, env.payload),
            recurrence: env.payload.recurrence,
          }),

    'publisher.job_validate.v1': (env) =>
      validateJob({ ...deps.create, verifyHeadBytes: deps.verifyHeadBytes }, jobRequest(env, env.payload)),

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
