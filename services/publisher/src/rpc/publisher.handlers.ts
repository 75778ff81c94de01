import {
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
import { createJob, type CreateJobDeps } from '../domain/create-job.ts';
import { toPostView } from '../domain/post-view.ts';
import { validateJob } from '../domain/validate-job.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export const publisherRpc = [
  publisherJobCreate,
  publisherJobValidate,
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

/** A create or validate request as the use cases take it (the two share every field but the job id). */
function jobRequestOf(env: Envelope<PayloadOf<typeof publisherJobValidate>>): JobRequest {
  return {
    orgId: orgOf(env),
    requestId: env.request_id,
    accountIds: env.payload.account_ids,
    text: env.payload.text,
    thread: env.payload.thread?.map((part) => ({
      text: part.text,
      mediaUrls: part.media_urls ?? [],
      mediaIds: part.media_ids ?? [],
    })),
    mediaUrls: env.payload.media_urls ?? [],
    mediaIds: env.payload.media_ids ?? [],
    options: env.payload.options ?? {},
    scheduledAt: env.payload.scheduled_at,
    optionsField: env.payload.options_field ?? 'provider_options',
    firstComment: env.payload.first_comment?.text,
  };
}

export function publisherRpcHandlers(deps: PublisherRpcDeps): RpcHandlers<typeof publisherRpc> {
  return {
    'publisher.job_create.v1': (env) => createJob(deps.create, { jobId: env.payload.job_id, ...jobRequestOf(env) }),

    'publisher.job_validate.v1': (env) =>
      validateJob({ ...deps.create, verifyHeadBytes: deps.verifyHeadBytes }, jobRequestOf(env)),

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
