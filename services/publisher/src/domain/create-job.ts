import { createEnvelope, newId, postQueued, schedulerJobSchedule, type PostViewType } from '@svc/contracts';
import { conflict, validationError, type ErrorDetail } from '@svc/errors';
import { checkUrl } from '@svc/http';
import { checkContent, isNetwork, isTikTokVerifiedUrl, type Network } from '@svc/providers';
import type { BatchQueue } from '@svc/db';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AccountsClient } from './accounts-client.ts';
import type { MediaRow } from '../data/media.repository.ts';
import type { NewJobRow, StoreOutcome } from '../data/accept.repository.ts';
import { databaseNow } from '../data/database-clock.ts';
import { publicUrlOf } from './media-view.ts';
import { deliveryRunCommands } from './delivery-run-commands.ts';
import { planLimitReached } from './post-quota.ts';
import { toPostView } from './post-view.ts';
import { resolveJobMedia, type ResolveMediaDeps } from './resolve-media.ts';

export interface CreateJobInput {
  /** Given for idempotent requests (derived from the Idempotency-Key): an existing job with it is returned as is. */
  jobId?: string | undefined;
  orgId: string;
  requestId: string | null;
  accountIds: string[];
  text: string;
  mediaUrls: string[];
  mediaIds: string[];
  /** Per-network options keyed by network name. */
  options: Record<string, Record<string, unknown>>;
  scheduledAt: string | undefined;
  /** The body field the options came from (`provider_options` or `platform_options`), for error paths. */
  optionsField: string;
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

const TIMEZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;
const UNUSABLE = new Set(['revoked', 'requires_reconnect']);

/** When the job is due, checked against the database clock (the one the scheduler fires by). */
async function dueTime(
  db: PrismaClient,
  scheduledAt: string | undefined,
  minLeadSeconds: number,
): Promise<Date | null> {
  if (scheduledAt === undefined) return null;
  const at = new Date(scheduledAt);
  if (!TIMEZONE.test(scheduledAt.trim()) || Number.isNaN(at.getTime())) {
    throw validationError('scheduled_at must be an ISO 8601 date-time with a timezone, e.g. 2030-01-01T09:00:00Z.', [
      {
        path: '/body/scheduled_at',
        message: 'must be an ISO 8601 date-time with a timezone',
        rule: 'scheduled_at_format',
      },
    ]);
  }
  const now = (await databaseNow(db)) ?? new Date();
  if (at.getTime() < now.getTime() + minLeadSeconds * 1000) {
    throw validationError(`scheduled_at must be at least ${minLeadSeconds} seconds in the future.`, [
      {
        path: '/body/scheduled_at',
        message: `must be at least ${minLeadSeconds} seconds ahead (server time ${now.toISOString()})`,
        rule: 'scheduled_at_lead',
      },
    ]);
  }
  return at;
}

/**
 * Accepts a job: every target account must be a connected account of the organization and every
 * network's content rules must pass (400 naming the account and the rule otherwise;
 * docs/api-conventions.md, "Per-network validation"). The job, one delivery per account and the
 * outbox messages (its post.queued, carried with those of the jobs stored together, and its
 * delivery commands, or the scheduler's schedule command) commit in one transaction, which also
 * counts the job against the organization's monthly posts limit (402 plan_limit_reached when none
 * is left).
 */
export async function createJob(deps: CreateJobDeps, input: CreateJobInput): Promise<PostViewType> {
  const existing = input.jobId === undefined ? null : await existingJob(deps.db, input.orgId, input.jobId);
  if (existing !== null) return existing;
  const details: ErrorDetail[] = [];
  // SSRF pre-check (docs/api-conventions.md, "URLs users give us"): resolvable, public http(s)
  // hosts only. The adapters' downloads check again at connect time, which also covers a host that
  // re-resolves later.
  const checks = await Promise.all(
    input.mediaUrls.map((url) => checkUrl(url, { allowPrivate: deps.allowPrivateUrls })),
  );
  checks.forEach((check, index) => {
    if (!check.ok) details.push({ path: `/body/media_urls/${index}`, message: check.message, rule: 'media_url' });
  });
  for (const key of Object.keys(input.options)) {
    if (!isNetwork(key))
      details.push({
        path: `/body/${input.optionsField}/${key}`,
        message: 'is not a network name',
        rule: 'unknown_network',
      });
  }
  if (details.length > 0) throw validationError('The request names media or options that cannot be used.', details);

  const scheduledAt = await dueTime(deps.db, input.scheduledAt, deps.minLeadSeconds);
  const found = new Map(
    (await deps.accounts.lookup(input.orgId, input.accountIds, input.requestId)).map((account) => [
      account.id,
      account,
    ]),
  );
  const rows = await resolveJobMedia(deps.media, input.orgId, input.mediaIds, input.mediaUrls);
  const media = rows.map((row) => ({
    url: publicUrlOf(deps.mediaPublicBaseUrl, row.id),
    kind: row.kind as 'image' | 'video',
    ...(row.durationMs === null ? {} : { durationMs: row.durationMs }),
  }));
  input.accountIds.forEach((id, index) => {
    const path = `/body/account_ids/${index}`;
    const account = found.get(id);
    if (account === undefined) {
      details.push({
        path,
        message: `account ${id} does not exist in this organization`,
        rule: 'unknown_account',
        account_id: id,
      });
      return;
    }
    const label = `${account.provider} account ${id}${account.handle === null ? '' : ` (${account.handle})`}`;
    if (UNUSABLE.has(account.health)) {
      details.push({
        path,
        message: `${label} is ${account.health} and must be reconnected before publishing`,
        rule: 'account_unusable',
        account_id: id,
        provider: account.provider,
      });
    }
    for (const violation of checkContent(account.provider, {
      text: input.text,
      media,
      options: input.options[account.provider] ?? {},
      ...(account.rule_extras ? { account: account.rule_extras } : {}),
    })) {
      details.push({
        path,
        message: `${label}: ${violation.message}`,
        rule: violation.rule,
        account_id: id,
        provider: account.provider,
      });
    }
    const photo = media.find((item) => item.kind === 'image');
    if (
      account.provider === 'tiktok' &&
      photo !== undefined &&
      !isTikTokVerifiedUrl(photo.url, deps.tiktokVerifiedPrefixes)
    ) {
      details.push({
        path,
        message: `${label}: TikTok pulls photos only from a verified domain, and the media domain is not in TIKTOK_VERIFIED_URL_PREFIXES; post a video or verify the domain`,
        rule: 'url_ownership_unverified',
        account_id: id,
        provider: account.provider,
      });
    }
    for (const problem of incompatible(rows, account.provider)) {
      details.push({
        path,
        message: `${label}: media ${problem.mediaId} does not fit: ${problem.message}`,
        rule: `media_${problem.rule}`,
        account_id: id,
        provider: account.provider,
        media_id: problem.mediaId,
      });
    }
  });
  if (details.length > 0)
    throw validationError('The post cannot be published to every target account as it stands.', details);

  const jobId = input.jobId ?? newId();
  const providers: Network[] = [];
  const deliveries = input.accountIds.map((accountId, position) => {
    const provider = found.get(accountId)!.provider;
    if (!providers.includes(provider)) providers.push(provider);
    return { id: newId(), jobId, orgId: input.orgId, accountId, provider, position, status: 'pending' };
  });
  let job: PostViewType;
  try {
    job = await insertJob(deps, input, {
      jobId,
      providers,
      deliveries,
      scheduledAt,
      mediaIds: rows.map((row) => row.id),
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
}

/**
 * The per-network verdicts measured at ingest that refuse this network (refused before a post fails:
 * docs/api-conventions.md, "Per-network validation").
 */
function incompatible(rows: MediaRow[], provider: Network): { mediaId: string; rule: string; message: string }[] {
  return rows.flatMap((row) => {
    const verdict = (
      row.compatibility as Record<string, { ok: boolean; rule: string | null; message: string | null } | undefined>
    )[provider];
    return verdict === undefined || verdict.ok
      ? []
      : [{ mediaId: row.id, rule: verdict.rule ?? 'format', message: verdict.message ?? 'not accepted' }];
  });
}

/**
 * The job, its deliveries, its unit of the monthly quota and the outbox messages of its first step,
 * committed together by the accept batcher (one statement for every job validated meanwhile).
 */
async function insertJob(
  deps: CreateJobDeps,
  input: CreateJobInput,
  { jobId, providers, deliveries, scheduledAt, mediaIds }: NewJob,
): Promise<PostViewType> {
  const context = { orgId: input.orgId, requestId: input.requestId };
  const status = scheduledAt === null ? 'queued' : 'scheduled';
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
            text: input.text,
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
    text: input.text,
    mediaUrls: input.mediaUrls,
    mediaIds,
    options: input.options,
    accountIds: input.accountIds,
    providers,
    scheduledAt,
    requestId: input.requestId,
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
    text: input.text,
    account_ids: input.accountIds,
    providers,
    media_urls: input.mediaUrls,
    scheduled_at: scheduledAt?.toISOString() ?? null,
    created_at: outcome.createdAt.toISOString(),
    results,
  };
}
