import { createEnvelope, publisherDeliveryRun } from '@svc/contracts';
import { isAppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { isProviderError, type MediaInput, type Network, type Providers, type PublishResult } from '@svc/providers';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { AccountCredentials, AccountsClient } from './accounts-client.ts';
import { deliveryErrorCodes, type DeliveryErrorCode } from './errors.ts';
import { finishJobIfDone } from './finish-job.ts';
import { deliveryMedia, type DeliveryMediaDeps } from './delivery-media.ts';
import { enqueueOutboxAfter } from './outbox-at.ts';
import type { DeliveryRow } from './post-view.ts';

export interface RunDeliveryDeps {
  db: PrismaClient;
  accounts: AccountsClient;
  providers: Providers;
  logger: Logger;
  maxAttempts: number;
  /** Backoff before attempt n + 1 (index n - 1; the last value repeats). */
  backoffMs: number[];
  leaseMs: number;
  /**
   * Deliveries of one organization in flight at once, across every publisher process (issue 8):
   * past it, a delivery is put back for `orgBusyDelayMs` instead of holding a consumer slot, so one
   * tenant cannot occupy every slot. Undefined: no per-organization limit.
   */
  orgConcurrency?: number;
  orgBusyDelayMs?: number;
  wake: () => void;
  /** Observes every network attempt (metrics): published, retry or failed, with the error code. */
  onOutcome?: (provider: string, outcome: 'published' | 'retry' | 'failed', code: string) => void;
  /** The media library (records and storage); absent in tests whose jobs carry plain URLs only. */
  media?: DeliveryMediaDeps;
  /** Observes a delivery put back because its organization was at its limit (metrics). */
  onDeferred?: (provider: string) => void;
  /** Tests only: runs after the network accepted the post and before it is recorded (a crash window). */
  afterNetworkCall?: (deliveryId: string) => Promise<void>;
}

type Outcome =
  | { kind: 'published'; result: PublishResult }
  | { kind: 'retry'; code: DeliveryErrorCode; message: string; retryAfterMs: number | undefined }
  | { kind: 'failed'; code: DeliveryErrorCode; message: string };

/** Tries at recording an outcome (250 ms, 1 s, 4 s apart) before the handler fails. */
const RECORD_TRIES = 4;

const LABEL: Record<Network, string> = { instagram: 'Instagram', facebook: 'Facebook', x: 'X', linkedin: 'LinkedIn', tiktok: 'TikTok' };

/**
 * Delivers one target of a job, effectively once toward the network (decisions §3):
 * 1. a delivery already finished is acknowledged and left alone;
 * 2. the attempt is claimed first (`pending -> in_flight`, attempts + 1, a lease) and committed;
 * 3. the network's id is recorded in the same statement that marks it published;
 * 4. a delivery found `in_flight` past its lease had its worker die mid-call: it fails with
 *    `outcome_unknown` rather than being posted again blindly (the networks offer no reliable
 *    "did this post land" lookup); one still within its lease is looked at again when it ends.
 * Retryable failures (rate limits, 5xx, timeouts) wait `max(backoff, Retry-After)` through an outbox
 * row with a future `available_at`; an expired token is refreshed once and the call repeated.
 */
export class DeliveryRunner {
  constructor(private readonly deps: RunDeliveryDeps) {}

  async run(deliveryId: string): Promise<void> {
    const delivery = await this.deps.db.delivery.findUnique({ where: { id: deliveryId } });
    if (delivery === null) return;
    if (delivery.status === 'in_flight') return this.resolveInFlight(delivery);
    if (delivery.status !== 'pending') return;
    const job = await this.deps.db.job.findUnique({ where: { id: delivery.jobId } });
    if (job === null || !['queued', 'processing'].includes(job.status)) return;

    let credentials: AccountCredentials;
    try {
      credentials = await this.deps.accounts.credentials(delivery.orgId, delivery.accountId, false, job.requestId);
    } catch (error) {
      const lost = this.accountLost(delivery, error);
      if (lost === undefined) throw error; // accounts unreachable: the broker retries, nothing was claimed yet
      return this.finish(delivery, delivery.attempts, lost);
    }

    const attempt = await this.claim(delivery);
    if (attempt === 'org_busy') return this.deferForOrg(delivery, job.requestId);
    if (attempt === undefined) return;
    const media = await deliveryMedia(this.deps.media, job, delivery.provider as Network);
    if (media === undefined) {
      return this.finish(delivery, attempt, { kind: 'failed', code: 'media_invalid', message: 'A media file of this post is no longer in the library.' });
    }
    const outcome = await this.attempt(delivery, credentials, job.text, media, (job.options as Record<string, Record<string, unknown> | undefined>)[delivery.provider] ?? {}, job.requestId);
    this.deps.onOutcome?.(delivery.provider, outcome.kind, outcome.kind === 'published' ? 'ok' : outcome.code);
    if (outcome.kind === 'published') await this.deps.afterNetworkCall?.(delivery.id);
    if (outcome.kind === 'retry' && attempt < this.deps.maxAttempts) return this.retryLater(delivery, attempt, outcome, job.requestId);
    if (outcome.kind === 'retry') {
      return this.finish(delivery, attempt, {
        kind: 'failed',
        code: deliveryErrorCodes.retriesExhausted,
        message: `${outcome.message} (gave up after ${attempt} attempts)`,
      });
    }
    return this.finish(delivery, attempt, outcome);
  }

  /**
   * pending -> in_flight with a lease, committed before the network is called. With a
   * per-organization limit, claims of one organization are serialized by an advisory lock so the
   * count of its live leases cannot be read stale by two workers at once.
   */
  private async claim(delivery: DeliveryRow): Promise<number | 'org_busy' | undefined> {
    const limit = this.deps.orgConcurrency;
    return this.deps.db.$transaction(async (tx) => {
      if (limit !== undefined) {
        await tx.$executeRawUnsafe("SELECT pg_advisory_xact_lock(hashtextextended('delivery-org:' || $1, 0))", delivery.orgId);
        const [busy] = await tx.$queryRawUnsafe<{ n: number }[]>(
          "SELECT count(*)::int AS n FROM deliveries WHERE org_id = $1 AND status = 'in_flight' AND lease_until > now()",
          delivery.orgId,
        );
        if ((busy?.n ?? 0) >= limit) return 'org_busy' as const;
      }
      const rows = await tx.$queryRawUnsafe<{ attempts: number }[]>(
        `UPDATE deliveries SET status = 'in_flight', attempts = attempts + 1, next_attempt_at = NULL,
                lease_until = now() + make_interval(secs => $2::float8), updated_at = now()
          WHERE id = $1::uuid AND status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
          RETURNING attempts`,
        delivery.id,
        this.deps.leaseMs / 1000,
      );
      if (rows.length === 0) return undefined;
      await tx.$executeRawUnsafe(
        "UPDATE jobs SET status = 'processing', started_at = now(), updated_at = now() WHERE id = $1::uuid AND status = 'queued'",
        delivery.jobId,
      );
      return rows[0]!.attempts;
    });
  }

  /** The organization already uses its share of delivery slots: try again shortly, acknowledging this command. */
  private async deferForOrg(delivery: DeliveryRow, requestId: string | null): Promise<void> {
    const delayMs = this.deps.orgBusyDelayMs ?? 2000;
    await this.deps.db.$transaction(async (tx) => {
      const envelope = createEnvelope(publisherDeliveryRun, { job_id: delivery.jobId, delivery_id: delivery.id }, { orgId: delivery.orgId, requestId });
      await enqueueOutboxAfter(tx, envelope, delayMs);
    });
    this.deps.onDeferred?.(delivery.provider);
    this.deps.logger.debug({ delivery_id: delivery.id, org_id: delivery.orgId, delay_ms: delayMs }, 'organization at its delivery limit; deferred');
  }

  private async attempt(delivery: DeliveryRow, first: AccountCredentials, text: string, media: MediaInput[], options: Record<string, unknown>, requestId: string | null): Promise<Outcome> {
    const adapter = this.deps.providers[delivery.provider as Network];
    const post = (credentials: AccountCredentials) =>
      adapter.publish.post({ credentials: { accessToken: credentials.access_token, extras: credentials.extras }, text, media, options });
    try {
      return { kind: 'published', result: await post(first) };
    } catch (error) {
      if (!isProviderError(error) || error.kind !== 'auth_expired') return this.classify(delivery, error);
    }
    // An expired token: refreshed once (accounts marks the account requires_reconnect if that fails), then one more call.
    let refreshed: AccountCredentials;
    try {
      refreshed = await this.deps.accounts.credentials(delivery.orgId, delivery.accountId, true, requestId);
    } catch (error) {
      const lost = this.accountLost(delivery, error);
      if (lost !== undefined) return lost;
      return { kind: 'retry', code: 'auth_expired', message: `${LABEL[delivery.provider as Network]} said the token expired and refreshing it failed for now.`, retryAfterMs: undefined };
    }
    try {
      return { kind: 'published', result: await post(refreshed) };
    } catch (error) {
      return this.classify(delivery, error);
    }
  }

  private classify(delivery: DeliveryRow, error: unknown): Outcome {
    const network = LABEL[delivery.provider as Network];
    if (!isProviderError(error)) {
      this.deps.logger.error({ err: error, delivery_id: delivery.id }, 'unexpected failure during a network call');
      return { kind: 'failed', code: deliveryErrorCodes.internalError, message: `An unexpected error interrupted the call to ${network}; the post was not retried in case it went through.` };
    }
    const message = `${network} refused the post (${error.kind}): ${error.networkMessage}`;
    if (error.retryable) return { kind: 'retry', code: error.kind, message, retryAfterMs: error.retryAfterMs };
    return { kind: 'failed', code: error.kind, message };
  }

  /** The account is gone or needs reconnecting since the job was accepted: that target fails, the others go on. */
  private accountLost(delivery: DeliveryRow, error: unknown): Extract<Outcome, { kind: 'failed' }> | undefined {
    if (!isAppError(error)) return undefined;
    if (error.code === 'not_found') {
      return { kind: 'failed', code: deliveryErrorCodes.accountDeleted, message: `The ${delivery.provider} account ${delivery.accountId} was deleted after the job was accepted.` };
    }
    if (error.code === 'conflict') {
      return { kind: 'failed', code: deliveryErrorCodes.accountUnusable, message: `The ${delivery.provider} account ${delivery.accountId} needs reconnecting: ${error.message}` };
    }
    return undefined;
  }

  private async retryLater(delivery: DeliveryRow, attempt: number, outcome: Extract<Outcome, { kind: 'retry' }>, requestId: string | null): Promise<void> {
    const backoff = this.deps.backoffMs[Math.min(attempt - 1, this.deps.backoffMs.length - 1)] ?? 1000;
    const delayMs = Math.max(backoff, outcome.retryAfterMs ?? 0);
    await this.persistently(delivery, () => this.deps.db.$transaction(async (tx) => {
      const moved = await tx.$executeRawUnsafe(
        `UPDATE deliveries SET status = 'pending', lease_until = NULL, error_code = $3, error_message = $4,
                next_attempt_at = now() + make_interval(secs => $5::float8), updated_at = now()
          WHERE id = $1::uuid AND status = 'in_flight' AND attempts = $2`,
        delivery.id,
        attempt,
        outcome.code,
        outcome.message,
        delayMs / 1000,
      );
      if (moved === 0) return;
      const envelope = createEnvelope(publisherDeliveryRun, { job_id: delivery.jobId, delivery_id: delivery.id }, { orgId: delivery.orgId, requestId });
      await enqueueOutboxAfter(tx, envelope, delayMs);
    }));
    this.deps.logger.info({ delivery_id: delivery.id, attempt, delay_ms: delayMs, code: outcome.code }, 'delivery will be retried');
  }

  /**
   * Records the outcome of attempt `attempt` (only if it still owns the delivery) and finishes the job
   * if it was the last. Retried in-process a few times: once a post exists, losing its id to a
   * database blip would turn a success into `outcome_unknown`.
   */
  private async finish(delivery: DeliveryRow, attempt: number, outcome: Exclude<Outcome, { kind: 'retry' }>): Promise<void> {
    await this.persistently(delivery, () => this.record(delivery, attempt, outcome));
    this.deps.wake();
  }

  /** Runs a write after a network call a few times before failing the handler (whose retry would find the delivery in flight). */
  private async persistently(delivery: DeliveryRow, write: () => Promise<void>): Promise<void> {
    for (let tries = 1; ; tries += 1) {
      try {
        await write();
        return;
      } catch (error) {
        if (tries >= RECORD_TRIES) throw error;
        this.deps.logger.warn({ err: error, delivery_id: delivery.id, tries }, 'recording a delivery outcome failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, 250 * 4 ** (tries - 1)));
      }
    }
  }

  private async record(delivery: DeliveryRow, attempt: number, outcome: Exclude<Outcome, { kind: 'retry' }>): Promise<void> {
    await this.deps.db.$transaction(async (tx) => {
      const owned = outcome.kind === 'published'
        ? await tx.$executeRawUnsafe(
          `UPDATE deliveries SET status = 'published', platform_post_id = $3, platform_post_url = $4, error_code = NULL, error_message = NULL,
                  lease_until = NULL, published_at = now(), finished_at = now(), updated_at = now()
            WHERE id = $1::uuid AND status = 'in_flight' AND attempts = $2`,
          delivery.id, attempt, outcome.result.platformPostId, outcome.result.url,
        )
        : await tx.$executeRawUnsafe(
          `UPDATE deliveries SET status = 'failed', error_code = $3, error_message = $4, lease_until = NULL, finished_at = now(), updated_at = now()
            WHERE id = $1::uuid AND attempts = $2 AND status IN ('in_flight', 'pending') AND platform_post_id IS NULL`,
          delivery.id, attempt, outcome.code, outcome.message.slice(0, 2000),
        );
      if (owned === 0) {
        if (outcome.kind === 'published') await this.recordLateSuccess(tx, delivery, outcome.result);
        return;
      }
      await finishJobIfDone(tx, delivery.jobId);
    });
  }

  /**
   * The network accepted a post after this attempt's lease ran out and another worker resolved it
   * as outcome_unknown: keep the native id (it is the truth) without announcing the job twice.
   */
  private async recordLateSuccess(tx: Prisma.TransactionClient, delivery: DeliveryRow, result: PublishResult): Promise<void> {
    this.deps.logger.warn({ delivery_id: delivery.id }, 'network accepted a post after its lease expired; recording its id');
    await tx.$executeRawUnsafe(
      "UPDATE deliveries SET platform_post_id = $2, platform_post_url = $3, updated_at = now() WHERE id = $1::uuid AND platform_post_id IS NULL",
      delivery.id, result.platformPostId, result.url,
    );
  }

  /** A command for a delivery already in flight: a duplicate while the call runs, or the leftover of a dead worker. */
  private async resolveInFlight(delivery: DeliveryRow): Promise<void> {
    const [lease] = await this.deps.db.$queryRawUnsafe<{ remaining_ms: number }[]>(
      'SELECT GREATEST(0, EXTRACT(EPOCH FROM (lease_until - now())) * 1000)::float8 AS remaining_ms FROM deliveries WHERE id = $1::uuid',
      delivery.id,
    );
    const remainingMs = lease?.remaining_ms ?? 0;
    if (remainingMs > 0) {
      // Possibly still running elsewhere: look again once the lease is over.
      await this.deps.db.$transaction(async (tx) => {
        const envelope = createEnvelope(publisherDeliveryRun, { job_id: delivery.jobId, delivery_id: delivery.id }, { orgId: delivery.orgId, requestId: null });
        await enqueueOutboxAfter(tx, envelope, remainingMs + 250);
      });
      return;
    }
    const network = LABEL[delivery.provider as Network];
    await this.finish(delivery, delivery.attempts, {
      kind: 'failed',
      code: deliveryErrorCodes.outcomeUnknown,
      message: `The worker publishing to ${network} stopped during attempt ${delivery.attempts}, so whether the post reached ${network} is unknown. It was not posted again to avoid a duplicate; check the account and publish again if it is missing.`,
    });
  }
}
