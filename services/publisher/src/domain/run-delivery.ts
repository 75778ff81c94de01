import { createEnvelope, publisherDeliveryRun } from '@svc/contracts';
import { BatchQueue, type TransactionalClient } from '@svc/db';
import type { Logger } from '@svc/logger';
import { isProviderError, networkLabels, type Credentials, type Network, type Providers } from '@svc/providers';
import {
  keepLateSuccess,
  leaseRemainingMs,
  putBackDelivery,
  recordAttemptHandle,
  startNextAttempt,
  takeOverExpired,
} from '../data/delivery-attempt.ts';
import {
  claimDeliveries,
  type ClaimedAttempt,
  type ClaimResult,
  type DeliveryToClaim,
} from '../data/delivery-claim.ts';
import { recordOutcomesUnlessLast, type OutcomeToRecord, type OutcomeRecorded } from '../data/delivery-outcome.ts';
import { readDeliveriesToRun, type DeliveryRead, type DeliveryToRun, type JobToRun } from '../data/delivery-to-run.ts';
import { hasWaitingDeliveries, type WokenDelivery } from '../data/org-waiting.ts';
import type { AccountCredentials, AccountsClient } from './accounts-client.ts';
import {
  accountLost,
  classifyFailure,
  decideNext,
  type AttemptOutcome,
  type DeliveryDecision,
  type DeliveryPolicy,
  type FinalOutcome,
} from './delivery-decision.ts';
import { deliveryErrorCodes } from './errors.ts';
import { holdLease } from './delivery-lease.ts';
import { recordClosingOutcomes } from './finish-job.ts';
import { reconcileDelivery } from './reconcile-delivery.ts';
import { deliveryMedia, type DeliveryMediaDeps } from './delivery-media.ts';
import { enqueueOutboxAfter } from './outbox-at.ts';
import { OrgWakes } from './org-wakes.ts';
import { commentAfterPost, commentImpossible, runFirstComment } from './first-comment.ts';
import { callWithToken, type Called, type DeliverySteps } from './delivery-steps.ts';
import { runThread } from './thread-delivery.ts';
import { threadOf } from './thread-request.ts';

export interface RunDeliveryDeps extends DeliveryPolicy {
  /**
   * The deliveries' database: every statement of a delivery is raw SQL, sent on a plain pg pool in
   * production (`DELIVERY_DB_POOL_SIZE`), which costs a fraction of Prisma's raw path (docs/performance.md).
   */
  db: TransactionalClient;
  accounts: AccountsClient;
  providers: Providers;
  logger: Logger;
  leaseMs: number;
  /**
   * Deliveries of one organization in flight at once, across every publisher process:
   * past it, a delivery waits in the database for a slot (its command acknowledged, so it holds no
   * consumer slot: one tenant cannot occupy every slot), and the delivery that frees one wakes it and
   * runs it in the same process.
   * Undefined: no per-organization limit.
   */
  orgConcurrency?: number;
  wake: () => void;
  /** Observes every network attempt (metrics): published, retry or failed, with the error code. */
  onOutcome?: (provider: string, outcome: 'published' | 'retry' | 'failed', code: string) => void;
  /** The media library (records and storage); absent in tests whose jobs carry plain URLs only. */
  media?: DeliveryMediaDeps;
  /** Observes a delivery set waiting because its organization was at its limit (metrics). */
  onDeferred?: (provider: string) => void;
  /** Tests only: runs after the network accepted the post and before it is recorded (a crash window). */
  afterNetworkCall?: (deliveryId: string) => Promise<void>;
}

/**
 * Deliveries read, claimed or recorded by one statement at most (more than a process runs at once),
 * one statement of each kind at a time: two at once measured no gain (docs/performance.md).
 */
const GROUP = { maxSize: 100, maxInFlight: 1, splitOnFailure: true } as const;

/** Tries at recording an outcome (250 ms, 1 s, 4 s apart) before the handler fails. */
const RECORD_TRIES = 4;

/**
 * Delivers one target of a job exactly once toward the network (docs/api-conventions.md, "Delivery:
 * effectively once"):
 * 1. a delivery already finished is acknowledged and left alone;
 * 2. the attempt is claimed first (`pending -> in_flight`, attempts + 1, its start time, a short
 *    lease renewed by a heartbeat while this worker lives) and committed;
 * 3. the network's id is recorded in the same statement that marks it published;
 * 4. an attempt whose outcome is uncertain (the create call timed out, lost its connection or got a
 *    5xx after it was sent; the network still processing when polling stopped; the worker died and
 *    its lease ran out) is reconciled: the network is asked whether the post exists. Found: published
 *    with its id. Verifiably absent: posted again. The network cannot say: `outcome_unknown`, with why.
 * Retryable failures (rate limits, refused calls) wait `max(backoff, Retry-After)` through an outbox
 * row with a future `available_at`; an expired or revoked token is renewed once and the call repeated.
 */
export class DeliveryRunner implements DeliverySteps {
  /**
   * The statements every delivery sends, each shared by the deliveries that get there at the same
   * time (group commit: fewer round trips, socket writes and commits; docs/performance.md): its
   * read, its claim, and its outcome, which a job's last delivery records with the transaction that
   * closes jobs (`closings`).
   */
  private readonly reads: BatchQueue<string, DeliveryRead>;
  private readonly claims: BatchQueue<DeliveryToClaim, ClaimResult>;
  private readonly outcomes: BatchQueue<OutcomeToRecord, OutcomeRecorded>;
  private readonly closings: BatchQueue<OutcomeToRecord, OutcomeRecorded>;
  /** The wakes of waiting deliveries this process asks for, run here (`runWoken`); none without a limit. */
  private readonly wakes: OrgWakes | undefined;

  /** Woken deliveries this process runs without a command (`runWoken`), until they settle. */
  private readonly woken = new Set<Promise<void>>();
  private stopping = false;

  constructor(readonly deps: RunDeliveryDeps) {
    this.reads = new BatchQueue((ids) => readDeliveriesToRun(deps.db, ids), GROUP);
    this.claims = new BatchQueue((items) => claimDeliveries(deps.db, items, deps.leaseMs, deps.orgConcurrency), GROUP);
    this.outcomes = new BatchQueue((items) => recordOutcomesUnlessLast(deps.db, items), GROUP);
    this.closings = new BatchQueue((items) => recordClosingOutcomes(deps.db, items), GROUP);
    this.wakes =
      deps.orgConcurrency === undefined
        ? undefined
        : new OrgWakes({
            db: deps.db,
            logger: deps.logger,
            limit: deps.orgConcurrency,
            forMs: deps.leaseMs,
            onWoken: (_orgId, woken) => this.runWoken(woken),
          });
  }

  async run(deliveryId: string): Promise<void> {
    const read = await this.reads.add(deliveryId);
    if (read === undefined) return;
    const { delivery, job } = read;
    if (delivery.status === 'in_flight') return this.takeOver(delivery);
    if (delivery.status !== 'pending') return;
    if (!['queued', 'processing'].includes(job.status)) return;

    let credentials: AccountCredentials;
    try {
      credentials = await this.deps.accounts.credentials(delivery.orgId, delivery.accountId, false, job.requestId);
    } catch (error) {
      const lost = accountLost(delivery, error);
      if (lost === undefined) throw error; // accounts unreachable: the broker retries, nothing was claimed yet
      if (delivery.platformPostId !== null) return commentImpossible(this, delivery, lost);
      await this.finish(delivery, delivery.attempts, lost);
      return;
    }

    const claim = await this.claim(delivery);
    if (claim === 'org_busy') return this.waitForSlot(delivery);
    if (claim === undefined) return;
    const lease = holdLease(this.deps.db, this.deps.logger, delivery.id, this.deps.leaseMs);
    let othersWaiting: boolean | undefined;
    try {
      othersWaiting = await this.attemptClaimed(delivery, job, claim, credentials);
    } finally {
      lease.release();
      await this.wakeNextWaiting(delivery.orgId, othersWaiting);
    }
  }

  /**
   * Runs deliveries this process woke (data/org-waiting.ts) now, beside the command it is handling,
   * instead of sending each a command through the outbox and the broker. Not awaited by the caller:
   * a woken delivery that frees its slot wakes the next, and a chain of awaits would hold the first
   * command until the organization's line ran dry. A run that fails (accounts unreachable) is logged
   * and its delivery left marked: the sweep puts it back in line once the mark runs out.
   */
  runWoken(woken: readonly WokenDelivery[]): void {
    for (const { id } of woken) {
      if (this.stopping) return;
      const running = this.run(id)
        .catch((error: unknown) =>
          this.deps.logger.warn(
            { err: error, delivery_id: id },
            'running a woken delivery failed; the next wake takes it again',
          ),
        )
        .finally(() => this.woken.delete(running));
      this.woken.add(running);
    }
  }

  /**
   * Asks for a wake of the organization's waiting deliveries, for deliveries that started waiting
   * elsewhere (a job accepted into its organization's line): shares the wake rounds of this
   * process's own waits. Never fails: a wake that fails leaves them to the sweeper.
   */
  wakeWaiting(orgId: string): void {
    void this.wakeNextWaiting(orgId, true);
  }

  /** Stops running woken deliveries and waits for those already running (shutdown). */
  async drain(): Promise<void> {
    this.stopping = true;
    await this.wakes?.stop();
    while (this.woken.size > 0) await Promise.all(this.woken);
  }

  /**
   * The network part of a claimed attempt: everything until its outcome is recorded or it is put
   * back. Returns whether deliveries of the organization wait, when recording the outcome said so.
   */
  private async attemptClaimed(
    delivery: DeliveryToRun,
    job: JobToRun,
    claim: ClaimedAttempt,
    credentials: AccountCredentials,
  ): Promise<boolean | undefined> {
    // The post exists (recorded before its first comment): what remains is the comment.
    if (claim.post !== null)
      return await runFirstComment(
        this,
        delivery,
        { firstComment: job.firstComment ?? '', requestId: job.requestId },
        {
          attempt: claim.attempt,
          post: claim.post,
          reconcileSince: claim.reconcileSince,
          reconcileTries: claim.reconcileTries,
          quotaDeferrals: claim.quotaDeferrals,
          recorded: claim.firstCommentStatus !== null || job.firstComment === null,
        },
        credentials,
      );
    const thread = threadOf(job.thread);
    if (thread !== null) return await runThread(this, delivery, job, thread, claim, credentials);
    const media = await deliveryMedia(this.deps.media, job, delivery.provider as Network);
    if (media === undefined) {
      return await this.finish(delivery, claim.attempt, {
        kind: 'failed',
        code: 'media_invalid',
        message: 'A media file of this post is no longer in the library.',
      });
    }
    let attempt = claim.attempt;
    let resume = claim.previousHandle;
    if (claim.reconcileSince !== null) {
      const next = await this.reconcile(delivery, job, claim, credentials, media.length);
      if (next === undefined) return;
      attempt = next;
      resume = claim.handle; // the looked-up attempt's post is verifiably absent
    }
    const options = (job.options as Record<string, Record<string, unknown> | undefined>)[delivery.provider] ?? {};
    const outcome = await this.attempt(
      delivery,
      { number: attempt, resume },
      credentials,
      { text: job.text, media, options },
      job.requestId,
    );
    this.deps.onOutcome?.(
      delivery.provider,
      outcome.kind === 'uncertain' ? 'retry' : outcome.kind,
      outcome.kind === 'published' ? 'ok' : outcome.kind === 'uncertain' ? 'uncertain' : outcome.code,
    );
    if (outcome.kind === 'published') await this.deps.afterNetworkCall?.(delivery.id);
    const decision = decideNext(
      outcome,
      {
        attempt,
        quotaDeferrals: claim.quotaDeferrals,
        reconcileTries: 0,
        network: networkLabels[delivery.provider as Network],
      },
      this.deps,
    );
    if (decision.kind === 'finish') return await this.finishPost(delivery, job, attempt, decision.outcome, credentials);
    // Put back: the slot is free, and whether anyone waits is asked after (undefined).
    await this.putBack(delivery, attempt, decision, job.requestId);
    return undefined;
  }

  /** A post's final outcome: finished, or (published, with a first comment to make) commented on first. */
  private finishPost(
    delivery: DeliveryToRun,
    job: JobToRun,
    attempt: number,
    outcome: FinalOutcome,
    credentials: AccountCredentials,
  ): Promise<boolean | undefined> {
    if (outcome.kind !== 'published' || job.firstComment === null) return this.finish(delivery, attempt, outcome);
    return commentAfterPost(
      this,
      delivery,
      { firstComment: job.firstComment, requestId: job.requestId },
      attempt,
      outcome.result,
      credentials,
    );
  }

  /**
   * Looks up the post of the previous attempt, whose outcome is uncertain. Returns the number of a
   * new attempt when the post is verifiably absent and may be posted again, undefined when the
   * delivery was settled (found, failed) or put back to look again later.
   */
  private async reconcile(
    delivery: DeliveryToRun,
    job: JobToRun,
    claim: ClaimedAttempt,
    credentials: AccountCredentials,
    mediaCount: number,
  ): Promise<number | undefined> {
    const { text, requestId } = job;
    const network = networkLabels[delivery.provider as Network];
    const found = await reconcileDelivery(
      { db: this.deps.db, providers: this.deps.providers, logger: this.deps.logger },
      {
        id: delivery.id,
        orgId: delivery.orgId,
        accountId: delivery.accountId,
        provider: delivery.provider,
        since: claim.reconcileSince!,
        handle: claim.handle,
      },
      { accessToken: credentials.access_token, extras: credentials.extras },
      text,
      mediaCount,
    );
    // The reason says which of a lookup's waits this was (still processing, a failed or incomplete read).
    this.deps.logger.info(
      {
        delivery_id: delivery.id,
        attempt: claim.attempt,
        result: found.kind,
        ...('reason' in found ? { reason: found.reason } : {}),
      },
      'uncertain attempt reconciled with the network',
    );
    const decision = decideNext(
      found,
      { attempt: claim.attempt, quotaDeferrals: claim.quotaDeferrals, reconcileTries: claim.reconcileTries, network },
      this.deps,
    );
    if (decision.kind === 'post_again')
      return startNextAttempt(this.deps.db, delivery.id, claim.attempt, this.deps.leaseMs);
    if (decision.kind === 'finish') await this.finishPost(delivery, job, claim.attempt, decision.outcome, credentials);
    else await this.putBack(delivery, claim.attempt, decision, requestId);
    return undefined;
  }

  /** pending -> in_flight with a lease, committed before the network is called (one statement per group: data/delivery-claim.ts). */
  private claim(delivery: DeliveryToRun): Promise<ClaimResult> {
    return this.claims.add({ id: delivery.id, orgId: delivery.orgId });
  }

  /**
   * The organization already uses its share of delivery slots: the claim set the delivery waiting
   * and this command is done. One wake follows, for a slot freed while the claim ran: the delivery
   * that freed it looked for waiting deliveries before this one's wait was committed.
   */
  private async waitForSlot(delivery: DeliveryToRun): Promise<void> {
    this.deps.onDeferred?.(delivery.provider);
    this.deps.logger.debug(
      { delivery_id: delivery.id, org_id: delivery.orgId },
      'organization at its delivery limit; waiting for a slot',
    );
    await this.wakeNextWaiting(delivery.orgId, true);
  }

  /**
   * This delivery's slot is free (its outcome recorded or put back; if recording failed, it is still
   * in flight and the count finds no free slot): the organization's oldest waiting delivery is woken
   * and run by this process (`runWoken`). `waiting` says whether any waits, when known: from the
   * outcome's own statement, or true for a delivery that has just been set waiting. Otherwise a
   * probe asks, after this delivery's outcome was committed: a wait committed earlier is seen, one
   * committed later woke itself (`waitForSlot`). The outcome's statement looks before its commit, so
   * a wait committed in between whose own wake also came before that commit is missed: it is woken by
   * the next slot freed or, at the latest, by the sweeper, which wakes waiting deliveries of
   * organizations with free slots on every pass (DELIVERY_SWEEP_INTERVAL_MS). So is one whose wake
   * failed here.
   */
  private async wakeNextWaiting(orgId: string, waiting: boolean | undefined): Promise<void> {
    // Stopping: a delivery woken now would keep its mark for a lease with nobody to run it.
    if (this.wakes === undefined || waiting === false || this.stopping) return;
    try {
      if (waiting === undefined && !(await hasWaitingDeliveries(this.deps.db, orgId))) return;
    } catch (error) {
      this.deps.logger.warn(
        { err: error, org_id: orgId },
        'asking whether deliveries wait for a slot failed; the sweeper will wake them',
      );
      return;
    }
    await this.wakes.ask(orgId);
  }

  async attempt(
    delivery: DeliveryToRun,
    { number: attempt, resume }: { number: number; resume: string | null },
    first: AccountCredentials,
    { text, media, options, inReplyTo }: Parameters<DeliverySteps['attempt']>[3],
    requestId: string | null,
  ): Promise<AttemptOutcome> {
    const adapter = this.deps.providers[delivery.provider as Network];
    // A handle on the attempt (TikTok publish_id, Facebook video id, X or LinkedIn uploaded media) is
    // stored as soon as the network gives it, so a reconciliation after a crash can ask about this
    // very attempt, and a later attempt can resume from its uploads.
    const onHandle = (handle: string) => recordAttemptHandle(this.deps.db, delivery.id, attempt, handle);
    const called = await this.withToken(delivery, first, requestId, (credentials) =>
      adapter.publish.post({
        credentials,
        text,
        media,
        options,
        onHandle,
        ...(resume === null ? {} : { resume }),
        ...(inReplyTo === undefined ? {} : { inReplyTo }),
      }),
    );
    if (called.kind === 'ok') return { kind: 'published', result: called.value };
    if (called.kind === 'outcome') return called.outcome;
    return this.classify(delivery, attempt, called.error);
  }

  withToken<T>(
    delivery: DeliveryToRun,
    first: AccountCredentials,
    requestId: string | null,
    call: (credentials: Credentials) => Promise<T>,
  ): Promise<Called<T>> {
    return callWithToken(this.deps, delivery, first, requestId, call);
  }

  private classify(delivery: DeliveryToRun, attempt: number, error: unknown): AttemptOutcome {
    if (!isProviderError(error))
      this.deps.logger.error({ err: error, delivery_id: delivery.id }, 'unexpected failure during a network call');
    return classifyFailure(networkLabels[delivery.provider as Network], attempt, error);
  }

  /**
   * in_flight -> pending with a command due in the decision's delay, if this attempt still owns the
   * delivery. A retry waits `max(backoff, Retry-After)` (a quota deferral is counted apart); after a
   * `reconcile` decision the next claim looks the attempt's post up instead of posting.
   */
  async putBack(
    delivery: DeliveryToRun,
    attempt: number,
    next: Extract<DeliveryDecision, { kind: 'retry' | 'reconcile' }>,
    requestId: string | null,
  ): Promise<void> {
    const reconcile = next.kind === 'reconcile';
    await this.persistently(delivery, () =>
      this.deps.db.$transaction(async (tx) => {
        const moved = await putBackDelivery(tx, delivery.id, attempt, {
          code: reconcile ? deliveryErrorCodes.reconciling : next.code,
          message: next.message,
          delayMs: next.delayMs,
          reconcileTries: reconcile ? next.tries : undefined,
          quotaDeferral: !reconcile && next.quotaDeferral,
        });
        if (!moved) return;
        const envelope = createEnvelope(
          publisherDeliveryRun,
          { job_id: delivery.jobId, delivery_id: delivery.id },
          { orgId: delivery.orgId, requestId },
        );
        await enqueueOutboxAfter(tx, envelope, next.delayMs);
      }),
    );
    if (reconcile)
      this.deps.logger.info(
        { delivery_id: delivery.id, attempt, delay_ms: next.delayMs, tries: next.tries },
        'delivery outcome uncertain; will look the post up',
      );
    else
      this.deps.logger.info(
        { delivery_id: delivery.id, attempt, delay_ms: next.delayMs, code: next.code },
        'delivery will be retried',
      );
  }

  /**
   * Records the outcome of attempt `attempt` (only if it still owns the delivery) and finishes the job
   * if it was the last. Retried in-process a few times: once a post exists, losing its id to a
   * database blip would turn a success into `outcome_unknown`.
   */
  async finish(delivery: DeliveryToRun, attempt: number, outcome: FinalOutcome): Promise<boolean | undefined> {
    const othersWaiting = await this.persistently(delivery, () => this.record(delivery, attempt, outcome));
    this.deps.wake();
    return othersWaiting;
  }

  /** Runs a write after a network call a few times before failing the handler (whose retry would find the delivery in flight). */
  async persistently<T>(delivery: DeliveryToRun, write: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await write();
      } catch (error) {
        if (tries >= RECORD_TRIES) throw error;
        this.deps.logger.warn(
          { err: error, delivery_id: delivery.id, tries },
          'recording a delivery outcome failed; trying again',
        );
        await new Promise((resolve) => setTimeout(resolve, 250 * 4 ** (tries - 1)));
      }
    }
  }

  /** Returns whether deliveries of the organization wait for a slot, when the statement that wrote the outcome could tell. */
  private async record(delivery: DeliveryToRun, attempt: number, outcome: FinalOutcome): Promise<boolean | undefined> {
    const item: OutcomeToRecord = {
      deliveryId: delivery.id,
      attempt,
      outcome:
        outcome.kind === 'published'
          ? { kind: 'published', platformPostId: outcome.result.platformPostId, url: outcome.result.url }
          : outcome,
    };
    // Not the job's last target as far as the read showed: the statement shared with the deliveries
    // finishing now, unless this one (or the group's count for its job) turns out last after all.
    if (delivery.unfinishedTargets > 1) {
      const grouped = await this.outcomes.add(item);
      if (grouped.recorded) return grouped.othersWaiting;
    }
    const closing = await this.closings.add(item);
    if (closing.recorded) return closing.othersWaiting;
    // Not this attempt's any more (its lease ran out, another worker settled it): a post's id is still the truth.
    if (outcome.kind === 'published') {
      this.deps.logger.warn(
        { delivery_id: delivery.id },
        'network accepted a post after its lease expired; recording its id',
      );
      await keepLateSuccess(this.deps.db, delivery.id, outcome.result.platformPostId, outcome.result.url);
    }
    return undefined;
  }

  /**
   * A command for a delivery in flight: a duplicate while its attempt runs (looked at again when the
   * lease would end), or the leftover of a worker that died (its lease ran out: no heartbeat renewed
   * it). Taking over is one conditional UPDATE, so a delivery its owner just moved on is left alone;
   * the taken delivery waits, pending, for a lookup of the dead attempt's post.
   */
  private async takeOver(delivery: DeliveryToRun): Promise<void> {
    const network = networkLabels[delivery.provider as Network];
    const message = `The worker publishing to ${network} stopped during attempt ${delivery.attempts}; checking with ${network} whether the post exists before anything else.`;
    if (await takeOverExpired(this.deps.db, delivery.id, deliveryErrorCodes.reconciling, message)) {
      this.deps.logger.warn(
        { delivery_id: delivery.id, attempt: delivery.attempts },
        'delivery lease expired; reconciling the attempt',
      );
      return this.run(delivery.id);
    }
    const remainingMs = await leaseRemainingMs(this.deps.db, delivery.id);
    if (remainingMs === undefined) return; // no longer in flight: its owner finished or put it back
    const envelope = createEnvelope(
      publisherDeliveryRun,
      { job_id: delivery.jobId, delivery_id: delivery.id },
      { orgId: delivery.orgId, requestId: null },
    );
    await enqueueOutboxAfter(this.deps.db, envelope, remainingMs + 250);
  }
}
