import { isProviderError, networkLabels, type Network } from '@svc/providers';
import type { Logger } from '@svc/logger';
import { keepLateSuccess, startNextAttempt } from '../data/delivery-attempt.ts';
import type { DeliveryToRun } from '../data/delivery-to-run.ts';
import { recordFirstComment, recordPostBeforeComment, type FirstCommentOutcome } from '../data/first-comment.ts';
import { classifyFailure, decideNext, type AttemptOutcome, type FinalOutcome } from './delivery-decision.ts';
import type { DeliverySteps } from './delivery-steps.ts';
import type { Reconciliation } from './reconcile-delivery.ts';
import type { AccountCredentials } from './accounts-client.ts';

/** Where a delivery whose post exists stands with its first comment, as its claim found it. */
export interface CommentStep {
  attempt: number;
  post: { platformPostId: string; url: string | null };
  /** Set: the comment's create call had an uncertain outcome (or its worker died): look it up first. */
  reconcileSince: Date | null;
  reconcileTries: number;
  quotaDeferrals: number;
  /** The comment's outcome is recorded already: only the delivery's own end remains. */
  recorded: boolean;
}

/**
 * The first comment of a published post (docs/api-conventions.md, "First comments"), made after the
 * post was recorded: never before, so a crash or a lost answer resumes here and never posts again.
 * The comment goes through the same decisions as a post (delivery-decision.ts): a lost or late
 * answer is looked up in the post's comments before commenting again, a retryable refusal waits,
 * anything else is final. Whatever becomes of it, it is recorded as the comment's own outcome and
 * the delivery finishes published: a failed first comment never fails its post.
 */
export async function runFirstComment(
  steps: DeliverySteps,
  delivery: DeliveryToRun,
  job: { firstComment: string; requestId: string | null },
  step: CommentStep,
  credentials: AccountCredentials,
): Promise<boolean | undefined> {
  const { deps } = steps;
  const network = networkLabels[delivery.provider as Network];
  const posted: FinalOutcome = {
    kind: 'published',
    result: { platformPostId: step.post.platformPostId, url: step.post.url ?? '' },
  };
  if (step.recorded) return steps.finish(delivery, step.attempt, posted);
  let attempt = step.attempt;
  const settle = async (outcome: FinalOutcome): Promise<boolean | undefined> => {
    const comment: FirstCommentOutcome =
      outcome.kind === 'published'
        ? { status: 'published', platformCommentId: outcome.result.platformPostId }
        : { status: 'failed', code: outcome.code, message: outcome.message };
    const recorded = await steps.persistently(delivery, () =>
      recordFirstComment(deps.db, delivery.id, attempt, comment),
    );
    if (!recorded) return undefined; // another worker took the delivery over: it settles the comment
    deps.logger.info(
      { delivery_id: delivery.id, attempt, first_comment: comment.status },
      'first comment settled; finishing the delivery as published',
    );
    return steps.finish(delivery, attempt, posted);
  };

  if (step.reconcileSince !== null) {
    const found = await lookUpComment(deps, delivery, credentials, step, job.firstComment);
    deps.logger.info(
      { delivery_id: delivery.id, attempt, result: found.kind, ...('reason' in found ? { reason: found.reason } : {}) },
      'uncertain first comment reconciled with the network',
    );
    const decision = decideNext(
      found,
      { attempt, quotaDeferrals: step.quotaDeferrals, reconcileTries: step.reconcileTries, network },
      deps,
    );
    if (decision.kind === 'finish') return settle(decision.outcome);
    if (decision.kind === 'reconcile') {
      await steps.putBack(delivery, attempt, decision, job.requestId);
      return undefined;
    }
    const next = await startNextAttempt(deps.db, delivery.id, attempt, deps.leaseMs);
    if (next === undefined) return undefined;
    attempt = next;
  }

  const comments = deps.providers[delivery.provider as Network].comments;
  const made =
    comments === undefined
      ? undefined
      : await steps.withToken(delivery, credentials, job.requestId, (token) =>
          comments.create({ credentials: token, postId: step.post.platformPostId, text: job.firstComment }),
        );
  const outcome: AttemptOutcome =
    made === undefined
      ? { kind: 'failed', code: 'validation', message: `${network} posts cannot get a first comment.` }
      : made.kind === 'ok'
        ? { kind: 'published', result: { platformPostId: made.value.platformCommentId, url: '' } }
        : made.kind === 'outcome'
          ? made.outcome
          : commentFailure(deps.logger, network, attempt, made.error, delivery.id);
  const decision = decideNext(
    outcome,
    { attempt, quotaDeferrals: step.quotaDeferrals, reconcileTries: 0, network },
    deps,
  );
  if (decision.kind === 'finish') return settle(decision.outcome);
  await steps.putBack(delivery, attempt, decision, job.requestId);
  return undefined;
}

/** A failed comment call as an outcome, worded for the comment (classifyFailure decides the kind). */
function commentFailure(
  logger: Logger,
  network: string,
  attempt: number,
  error: unknown,
  deliveryId: string,
): Exclude<AttemptOutcome, { kind: 'published' }> {
  if (!isProviderError(error))
    logger.error({ err: error, delivery_id: deliveryId }, 'unexpected failure while posting a first comment');
  const outcome = classifyFailure(network, attempt, error);
  if (outcome.kind === 'uncertain' || !isProviderError(error)) return outcome;
  return { ...outcome, message: `${network} refused the first comment (${error.kind}): ${error.networkMessage}` };
}

/** Asks the network whether the comment of an uncertain call exists under the post. */
async function lookUpComment(
  deps: DeliverySteps['deps'],
  delivery: DeliveryToRun,
  credentials: AccountCredentials,
  step: CommentStep,
  text: string,
): Promise<Reconciliation> {
  const comments = deps.providers[delivery.provider as Network].comments;
  if (comments === undefined) return { kind: 'unknown', reason: 'the network takes no comments' };
  try {
    const found = await comments.find({
      credentials: { accessToken: credentials.access_token, extras: credentials.extras },
      postId: step.post.platformPostId,
      text,
      since: step.reconcileSince!,
      excludeIds: [],
    });
    return found.status === 'found'
      ? { kind: 'found', result: { platformPostId: found.platformCommentId, url: '' } }
      : { kind: 'absent' };
  } catch (error) {
    if (!isProviderError(error)) {
      deps.logger.error({ err: error, delivery_id: delivery.id }, 'unexpected failure while looking a comment up');
      return { kind: 'wait', reason: 'the lookup failed unexpectedly' };
    }
    const reason = `the lookup failed (${error.kind}: ${error.networkMessage})`;
    return error.retryable || error.kind === 'auth_expired' ? { kind: 'wait', reason } : { kind: 'unknown', reason };
  }
}

/**
 * A post just published whose job asks for a first comment: its id and URL are recorded first (the
 * delivery still in flight), then the comment is made. If the attempt no longer owns the delivery,
 * the post's id is kept all the same (it is the truth) and the worker that took it over comments.
 */
export async function commentAfterPost(
  steps: DeliverySteps,
  delivery: DeliveryToRun,
  job: { firstComment: string; requestId: string | null },
  attempt: number,
  result: { platformPostId: string; url: string },
  credentials: AccountCredentials,
): Promise<boolean | undefined> {
  const post = { platformPostId: result.platformPostId, url: result.url };
  const recorded = await steps.persistently(delivery, () =>
    recordPostBeforeComment(steps.deps.db, delivery.id, attempt, post),
  );
  if (!recorded) {
    await keepLateSuccess(steps.deps.db, delivery.id, post.platformPostId, post.url);
    return undefined;
  }
  return runFirstComment(
    steps,
    delivery,
    job,
    { attempt, post, reconcileSince: null, reconcileTries: 0, quotaDeferrals: 0, recorded: false },
    credentials,
  );
}

/**
 * The account was lost after the post was published and before its first comment was made: the
 * comment fails with that reason and the delivery finishes published (never failed over a post).
 */
export async function commentImpossible(
  steps: DeliverySteps,
  delivery: DeliveryToRun,
  lost: Extract<FinalOutcome, { kind: 'failed' }>,
): Promise<void> {
  // Not written when the comment's outcome was recorded already: the delivery finishes all the same.
  await recordFirstComment(steps.deps.db, delivery.id, delivery.attempts, {
    status: 'failed',
    code: lost.code,
    message: lost.message,
  });
  await steps.finish(delivery, delivery.attempts, {
    kind: 'published',
    result: { platformPostId: delivery.platformPostId!, url: delivery.platformPostUrl ?? '' },
  });
}
