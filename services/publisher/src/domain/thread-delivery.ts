import { networkLabels, type Network } from '@svc/providers';
import { startNextAttempt } from '../data/delivery-attempt.ts';
import type { ClaimedAttempt } from '../data/delivery-claim.ts';
import type { DeliveryToRun, JobToRun } from '../data/delivery-to-run.ts';
import { recordThreadPart } from '../data/thread-parts.ts';
import type { AccountCredentials } from './accounts-client.ts';
import { decideNext, type FinalOutcome } from './delivery-decision.ts';
import { deliveryMedia } from './delivery-media.ts';
import type { DeliverySteps } from './delivery-steps.ts';
import { reconcileDelivery } from './reconcile-delivery.ts';
import type { StoredThreadPart } from './thread-request.ts';

/**
 * A thread to one account (X; docs/api-conventions.md, "Threads"): its parts in order, each replying
 * to the one before. Each part that exists is recorded (`thread_parts`) before the next one is
 * posted, so whatever interrupts the delivery (a retryable refusal, a lost answer, a worker's death)
 * resumes at the first part not known to exist; a part whose answer was lost is looked up first, as
 * a reply to the part before it. A part refused for good fails the target: the parts before it stay,
 * listed as published, and are never posted again. The target's post is its first part.
 */
export async function runThread(
  steps: DeliverySteps,
  delivery: DeliveryToRun,
  job: JobToRun,
  thread: readonly StoredThreadPart[],
  claim: ClaimedAttempt,
  credentials: AccountCredentials,
): Promise<boolean | undefined> {
  const { deps } = steps;
  const network = networkLabels[delivery.provider as Network];
  const options = (job.options as Record<string, Record<string, unknown> | undefined>)[delivery.provider] ?? {};
  const parts = [...claim.threadParts];
  let attempt = claim.attempt;
  let resume = claim.previousHandle;
  const mediaOf = (part: StoredThreadPart) =>
    deliveryMedia(
      deps.media,
      { orgId: delivery.orgId, mediaIds: part.media_ids, mediaUrls: [] },
      delivery.provider as Network,
    );
  const record = async (index: number, post: { platformPostId: string; url: string }): Promise<boolean> => {
    const recorded = await steps.persistently(delivery, () =>
      recordThreadPart(deps.db, delivery.id, attempt, index, { id: post.platformPostId, url: post.url }),
    );
    if (recorded) parts.push({ id: post.platformPostId, url: post.url });
    // Not this attempt's any more (its lease ran out): the worker that took it over looks this part up.
    else
      deps.logger.warn(
        { delivery_id: delivery.id, part: index },
        'thread part published after its attempt was taken over',
      );
    return recorded;
  };
  const fail = (outcome: Extract<FinalOutcome, { kind: 'failed' }>) =>
    steps.finish(delivery, attempt, { ...outcome, message: partFailure(parts.length, thread.length, outcome.message) });

  if (claim.reconcileSince !== null && parts.length < thread.length) {
    // The last attempt's outcome for the next part is uncertain: is it on X, answering the part before?
    const part = thread[parts.length]!;
    const media = await mediaOf(part);
    const found = await reconcileDelivery(
      { db: deps.db, providers: deps.providers, logger: deps.logger },
      {
        id: delivery.id,
        orgId: delivery.orgId,
        accountId: delivery.accountId,
        provider: delivery.provider,
        since: claim.reconcileSince,
        handle: claim.handle,
        inReplyTo: parts.at(-1)?.id,
      },
      { accessToken: credentials.access_token, extras: credentials.extras },
      part.text,
      media?.length ?? 0,
    );
    deps.logger.info(
      { delivery_id: delivery.id, attempt, part: parts.length, result: found.kind },
      'uncertain thread part reconciled with the network',
    );
    const decision = decideNext(
      found,
      { attempt, quotaDeferrals: claim.quotaDeferrals, reconcileTries: claim.reconcileTries, network },
      deps,
    );
    if (decision.kind === 'reconcile') {
      await steps.putBack(delivery, attempt, decision, job.requestId);
      return undefined;
    }
    if (decision.kind === 'finish') {
      if (decision.outcome.kind === 'failed') return fail(decision.outcome);
      if (!(await record(parts.length, decision.outcome.result))) return undefined;
    } else {
      const next = await startNextAttempt(deps.db, delivery.id, attempt, deps.leaseMs);
      if (next === undefined) return undefined;
      attempt = next;
      resume = claim.handle; // the looked-up part is verifiably absent: its uploads may be reused
    }
  }

  while (parts.length < thread.length) {
    const index = parts.length;
    const part = thread[index]!;
    const media = await mediaOf(part);
    if (media === undefined)
      return fail({
        kind: 'failed',
        code: 'media_invalid',
        message: 'A media file of this part is no longer in the library.',
      });
    const outcome = await steps.attempt(
      delivery,
      { number: attempt, resume },
      credentials,
      { text: part.text, media, options, inReplyTo: parts.at(-1)?.id },
      job.requestId,
    );
    deps.onOutcome?.(
      delivery.provider,
      outcome.kind === 'uncertain' ? 'retry' : outcome.kind,
      outcome.kind === 'published' ? 'ok' : outcome.kind === 'uncertain' ? 'uncertain' : outcome.code,
    );
    if (outcome.kind === 'published') await deps.afterNetworkCall?.(delivery.id);
    const decision = decideNext(
      outcome,
      { attempt, quotaDeferrals: claim.quotaDeferrals, reconcileTries: 0, network },
      deps,
    );
    if (decision.kind !== 'finish') {
      await steps.putBack(delivery, attempt, decision, job.requestId);
      return undefined;
    }
    if (decision.outcome.kind === 'failed') return fail(decision.outcome);
    if (!(await record(index, decision.outcome.result))) return undefined;
    resume = null;
  }
  const first = parts[0]!;
  return steps.finish(delivery, attempt, {
    kind: 'published',
    result: { platformPostId: first.id, url: first.url ?? '' },
  });
}

/** Which part failed, and that the parts before it exist and stay. */
function partFailure(index: number, total: number, message: string): string {
  const kept =
    index === 0
      ? ''
      : ` ${index === 1 ? 'Part 1 exists' : `Parts 1-${index} exist`} and ${index === 1 ? 'is' : 'are'} not posted again.`;
  return `Part ${index + 1} of ${total}: ${message}${kept}`;
}
