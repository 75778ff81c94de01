import { createEnvelope, newId, postQueued, schedulerJobSchedule, type PostViewType } from '@svc/contracts';
import { conflict, validationError } from '@svc/errors';
import type { Network } from '@svc/providers';
import type { BatchQueue } from '@svc/db';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AccountsClient } from './accounts-client.ts';
import type { MediaRow } from '../data/media.repository.ts';
import type { NewJobRow, StoreOutcome } from '../data/accept.repository.ts';
import { checkJob, type CheckJobDeps, type JobRequest } from './check-job.ts';
import { deliveryRunCommands } from './delivery-run-commands.ts';
import { planLimitReached } from './post-quota.ts';
import { toPostView } from './post-view.ts';
import { importingMedia } from './job-media.ts';
import type { ResolveMediaDeps } from './resolve-media.ts';
import { flatMedia, storedThread, type StoredThreadPart } from './thread-request.ts';

export interface CreateJobInput extends JobRequest {
  /** Given for idempotent requests (derived from the Idempotency-Key): an existing job with it is returned as is. */
  jobId?: string | undefined;
}

export interface CreateJobDeps {
  db: PrismaClient;
  accounts: AccountsClient;
  allowPrivateUrls: boolean;
  minLeadSeconds: number;
  /** Writes validated jobs in group commits, each counted against its organization's monthly posts limit. */
  accept: BatchQueue<NewJobRow, StoreOutcome>;
  /** The media library: resolves media_ids and imports media_urls at accept time. */
  media: ResolveMediaDeps;
  mediaPublicBaseUrl: string;
  /** TIKTOK_VERIFIED_URL_PREFIXES: TikTok photos can only be pulled, so their public URL must lie under one. */
  tiktokVerifiedPrefixes: readonly string[];
  /** DELIVERY_RUN_BATCHES (default true): a job's targets in v2 commands of up to 10, else one v1 each. */
  deliveryRunBatches?: boolean;
  /** Wakes the outbox relay after commit. */
  wake: () => void;
  /**
   * Asks for a wake of the organization's waiting deliveries after a job joined its line (for a
   * slot freed while the job was stored); absent where no organization limit applies.
   */
  wakeWaiting?: (orgId: string) => void;
  /** Observes each delivery stored waiting because its organization's line was not empty (metrics). */
  onDeferred?: (provider: string) => void;
}

/** What checkJob needs of the create dependencies; validate uses the same. */
export const checkDeps = (deps: CreateJobDeps): CheckJobDeps => ({
  db: deps.db,
  accounts: deps.accounts,
  allowPrivateUrls: deps.allowPrivateUrls,
  minLeadSeconds: deps.minLeadSeconds,
  tiktokVerifiedPrefixes: deps.tiktokVerifiedPrefixes,
});

/**
 * Accepts a job: checkJob must find no problem (a 400 listing every one otherwise, each naming the
 * account and the rule; docs/api-conventions.md, "Per-network validation"). The job, one delivery per account and the
 * outbox messages (its post.queued, carried with those of the jobs stored together, and its
 * delivery commands, or the scheduler's schedule command) commit in one transaction, which also
 * counts the job against the organization's monthly posts limit (402 plan_limit_reached when none
 * is left).
 */
export async function createJob(deps: CreateJobDeps, input: CreateJobInput): Promise<PostViewType> {
  const existing = input.jobId === undefined ? null : await existingJob(deps.db, input.orgId, input.jobId);
  if (existing !== null) return existing;
  let rows: MediaRow[] = [];
  const checked = await checkJob(
    checkDeps(deps),
    input,
    importingMedia(deps.media, deps.mediaPublicBaseUrl, (imported) => (rows = imported)),
  );
  if (checked.problems.length > 0)
    throw validationError('The post cannot be published to every target account as it stands.', checked.problems);
  const { accounts: found, scheduledAt } = checked;

  const jobId = input.jobId ?? newId();
  const providers: Network[] = [];
  const deliveries = input.accountIds.map((accountId, position) => {
    const provider = found.get(accountId)!.provider;
    if (!providers.includes(provider)) providers.push(provider);
    return { id: newId(), jobId, orgId: input.orgId, accountId, provider, position, status: 'pending' };
  });
  let job: PostViewType;
  try {
    const mediaIds = rows.map((row) => row.id);
    // A thread keeps its first part's text as the post's (history, search, events) and its parts apart.
    const thread = input.thread === undefined ? null : storedThread(input.thread, mediaIds);
    job = await insertJob(deps, input, {
      jobId,
      providers,
      deliveries,
      scheduledAt,
      mediaIds,
      text: thread?.[0]?.text ?? input.text ?? '',
      mediaUrls: input.thread === undefined ? input.mediaUrls : flatMedia(input.thread).mediaUrls,
      thread,
    });
  } catch (error) {
    // The same idempotent request, still running after its caller gave up, inserted it first.
    const raced = input.jobId === undefined ? null : await existingJob(deps.db, input.orgId, input.jobId);
    if (raced !== null) return raced;
    throw error;
  }
  deps.wake();
  return job;
}

async function existingJob(db: PrismaClient, orgId: string, jobId: string): Promise<PostViewType | null> {
  const job = await db.job.findUnique({ where: { id: jobId }, include: { deliveries: true } });
  if (job === null) return null;
  if (job.orgId !== orgId) throw conflict('This job id is taken; send the request with another Idempotency-Key.');
  return toPostView(job);
}

interface NewJob {
  jobId: string;
  providers: Network[];
  deliveries: {
    id: string;
    jobId: string;
    orgId: string;
    accountId: string;
    provider: Network;
    position: number;
    status: string;
  }[];
  scheduledAt: Date | null;
  mediaIds: string[];
  text: string;
  mediaUrls: string[];
  thread: StoredThreadPart[] | null;
}

/**
 * The job, its deliveries, its unit of the monthly quota and the outbox messages of its first step,
 * committed together by the accept batcher (one statement for every job validated meanwhile).
 */
async function insertJob(
  deps: CreateJobDeps,
  input: CreateJobInput,
  { jobId, providers, deliveries, scheduledAt, mediaIds, text, mediaUrls, thread }: NewJob,
): Promise<PostViewType> {
  const context = { orgId: input.orgId, requestId: input.requestId };
  const status = scheduledAt === null ? 'queued' : 'scheduled';
  const firstComment =
    input.firstComment === undefined
      ? {}
      : {
          first_comment: {
            status: 'pending' as const,
            platform_comment_id: null,
            error_code: null,
            error_message: null,
          },
        };
  const results = deliveries.map((delivery) => ({
    account_id: delivery.accountId,
    provider: delivery.provider,
    status: 'pending' as const,
    platform_post_id: null,
    platform_post_url: null,
    error_code: null,
    error_message: null,
    attempts: 0,
    published_at: null,
    ...firstComment,
    ...(thread === null
      ? {}
      : {
          parts: thread.map((_, index) => ({
            index,
            status: 'pending' as const,
            platform_post_id: null,
            platform_post_url: null,
            error_code: null,
            error_message: null,
          })),
        }),
  }));
  const queued =
    scheduledAt === null
      ? createEnvelope(
          postQueued,
          {
            id: jobId,
            job_id: jobId,
            status,
            account_ids: input.accountIds,
            platforms: providers,
            text,
            scheduled_at: null,
            error_message: null,
            results: results.map(({ attempts: _attempts, ...result }) => result),
          },
          context,
        )
      : null;
  const envelopes =
    scheduledAt === null
      ? []
      : [createEnvelope(schedulerJobSchedule, { job_id: jobId, run_at: scheduledAt.toISOString() }, context)];
  const deliveryCommands =
    scheduledAt === null
      ? deliveryRunCommands(
          jobId,
          deliveries.map((delivery) => delivery.id),
          context,
          deps.deliveryRunBatches,
        )
      : [];
  const outcome = await deps.accept.add({
    id: jobId,
    orgId: input.orgId,
    status,
    text,
    mediaUrls,
    mediaIds,
    options: input.options,
    accountIds: input.accountIds,
    providers,
    scheduledAt,
    requestId: input.requestId,
    firstComment: input.firstComment ?? null,
    thread,
    deliveries: deliveries.map(({ id, accountId, provider, position }) => ({ id, accountId, provider, position })),
    queued,
    envelopes,
    deliveryCommands,
  });
  if (outcome.kind === 'quota') throw planLimitReached(outcome.plan, outcome.used, outcome.limit);
  if (outcome.waiting) {
    for (const delivery of deliveries) deps.onDeferred?.(delivery.provider);
    deps.wakeWaiting?.(input.orgId);
  }
  return {
    id: jobId,
    status,
    text,
    account_ids: input.accountIds,
    providers,
    media_urls: mediaUrls,
    scheduled_at: scheduledAt?.toISOString() ?? null,
    created_at: outcome.createdAt.toISOString(),
    results,
  };
}
