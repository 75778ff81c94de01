import { newId, type PostViewType } from '@svc/contracts';
import { conflict, validationError } from '@svc/errors';
import type { BatchQueue } from '@svc/db';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AccountsClient } from './accounts-client.ts';
import type { MediaRow } from '../data/media.repository.ts';
import type { NewJobRow, StoreOutcome } from '../data/accept.repository.ts';
import { checkJob, type CheckJobDeps, type JobRequest } from './check-job.ts';
import { claimQueueTime, releaseQueueTime } from './claim-queue-time.ts';
import { planLimitReached } from './post-quota.ts';
import { toPostView } from './post-view.ts';
import { importingMedia } from './job-media.ts';
import { prepareJob, type PreparedJob } from './new-job-row.ts';
import type { ResolveMediaDeps } from './resolve-media.ts';

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
  /** How long a queued post's claim may wait for the organization's other claims (domain/claim-queue-time.ts). */
  transactionTimeoutMs: number;
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

  const jobId = input.jobId ?? newId();
  // A queued post takes its time now, once nothing else refuses it; the time is given back if the job is not stored.
  const queueTime = input.queue === true ? await claimQueueTime(deps, { ...input, jobId }) : null;
  const prepared = prepareJob(
    input,
    {
      jobId,
      accounts: checked.accounts,
      scheduledAt: queueTime ?? checked.scheduledAt,
      mediaIds: rows.map((row) => row.id),
    },
    deps.deliveryRunBatches,
  );
  let job: PostViewType;
  try {
    job = await insertJob(deps, input.orgId, prepared);
  } catch (error) {
    // Should the release itself fail, the claim lapses on its own 10 minutes after it was made; the
    // caller hears of the refusal that matters, the store's.
    if (queueTime !== null) await releaseQueueTime(deps.db, jobId, queueTime).catch(() => undefined);
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

/**
 * The job, its deliveries, its unit of the monthly quota and the outbox messages of its first step,
 * committed together by the accept batcher (one statement for every job validated meanwhile).
 */
async function insertJob(deps: CreateJobDeps, orgId: string, { row, view }: PreparedJob): Promise<PostViewType> {
  const outcome = await deps.accept.add(row);
  if (outcome.kind === 'quota') throw planLimitReached(outcome.plan, outcome.used, outcome.limit);
  if (outcome.waiting) {
    for (const delivery of row.deliveries) deps.onDeferred?.(delivery.provider);
    deps.wakeWaiting?.(orgId);
  }
  return view(outcome.createdAt);
}
