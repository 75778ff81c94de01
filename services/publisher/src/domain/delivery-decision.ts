import { isAppError } from '@svc/errors';
import { isProviderError, type PublishResult } from '@svc/providers';
import { deliveryErrorCodes, type DeliveryErrorCode } from './errors.ts';
import type { Reconciliation } from './reconcile-delivery.ts';

/** What one network attempt produced. */
export type AttemptOutcome =
  | { kind: 'published'; result: PublishResult }
  | { kind: 'retry'; code: DeliveryErrorCode; message: string; retryAfterMs: number | undefined }
  /** The post may or may not exist: look it up before anything is posted again. */
  | { kind: 'uncertain'; message: string }
  | { kind: 'failed'; code: DeliveryErrorCode; message: string };

/** An outcome that ends the delivery. */
export type FinalOutcome = Extract<AttemptOutcome, { kind: 'published' | 'failed' }>;

/** The limits a delivery runs under (the publisher's configuration). */
export interface DeliveryPolicy {
  maxAttempts: number;
  /** Deferrals to a quota window allowed on top of maxAttempts (they are not failed tries); default 0. */
  maxQuotaDeferrals?: number;
  /** Backoff before attempt n + 1 (index n - 1; the last value repeats). */
  backoffMs: number[];
  /** Waits before each lookup of an uncertain attempt; one lookup per value, then outcome_unknown. */
  reconcileDelaysMs: number[];
}

/** Where the delivery stands when its attempt or lookup returned. */
export interface DeliveryState {
  /** The attempt that ran, or whose post was looked up. */
  attempt: number;
  quotaDeferrals: number;
  /** Lookups of this attempt's post already waited for (0 for the first). */
  reconcileTries: number;
  /** The network's name, as messages show it. */
  network: string;
}

/**
 * What happens next. Delays are relative: the database adds them to its own clock (`next_attempt_at`,
 * the outbox's `available_at`), so the decision needs no clock of its own.
 */
export type DeliveryDecision =
  | { kind: 'finish'; outcome: FinalOutcome }
  /** Pending again, posted again after `delayMs`; a quota deferral is counted apart from failed tries. */
  | { kind: 'retry'; code: DeliveryErrorCode; message: string; delayMs: number; quotaDeferral: boolean }
  /** Pending again, and the next claim looks the attempt's post up (lookup `tries` + 1) instead of posting. */
  | { kind: 'reconcile'; message: string; delayMs: number; tries: number }
  /** The looked-up post is verifiably absent: a new attempt may post it, in the same claim. */
  | { kind: 'post_again' };

/** Only a lookup can find a post verifiably absent, so only a lookup leads to posting again at once. */
export function decideNext(
  produced: AttemptOutcome,
  state: DeliveryState,
  policy: DeliveryPolicy,
): Exclude<DeliveryDecision, { kind: 'post_again' }>;
export function decideNext(
  produced: Reconciliation,
  state: DeliveryState,
  policy: DeliveryPolicy,
): Exclude<DeliveryDecision, { kind: 'retry' }>;
export function decideNext(
  produced: AttemptOutcome | Reconciliation,
  state: DeliveryState,
  policy: DeliveryPolicy,
): DeliveryDecision {
  const { attempt, quotaDeferrals, network } = state;
  const attemptsLeft = attempt - quotaDeferrals < policy.maxAttempts;
  switch (produced.kind) {
    case 'published':
    case 'failed':
      return { kind: 'finish', outcome: produced };
    case 'uncertain':
      return lookUp(produced.message, 0, policy);
    case 'retry':
      if (produced.code === 'quota_exhausted' && quotaDeferrals < (policy.maxQuotaDeferrals ?? 0))
        return retry(produced, attempt, policy, true);
      if (attemptsLeft) return retry(produced, attempt, policy, false);
      return {
        kind: 'finish',
        outcome: {
          kind: 'failed',
          code: deliveryErrorCodes.retriesExhausted,
          message: `${produced.message} (gave up after ${attempt} attempts)`,
        },
      };
    case 'found':
      return { kind: 'finish', outcome: { kind: 'published', result: produced.result } };
    case 'wait':
      if (state.reconcileTries + 1 < policy.reconcileDelaysMs.length) {
        return lookUp(
          `Checking with ${network} whether attempt ${attempt} published the post: ${produced.reason}.`,
          state.reconcileTries + 1,
          policy,
        );
      }
      return outcomeUnknown(produced.reason, state);
    case 'unknown':
      return outcomeUnknown(produced.reason, state);
    case 'absent':
      if (attemptsLeft) return { kind: 'post_again' };
      return {
        kind: 'finish',
        outcome: {
          kind: 'failed',
          code: deliveryErrorCodes.retriesExhausted,
          message: `${network} has no post from the last of ${attempt} attempts (checked through its read API); gave up.`,
        },
      };
  }
}

/** Waits `max(backoff, Retry-After)`; a quota window's Retry-After is the wait for the window. */
function retry(
  outcome: Extract<AttemptOutcome, { kind: 'retry' }>,
  attempt: number,
  policy: DeliveryPolicy,
  quotaDeferral: boolean,
): DeliveryDecision & { kind: 'retry' } {
  const backoff = policy.backoffMs[Math.min(attempt - 1, policy.backoffMs.length - 1)] ?? 1000;
  return {
    kind: 'retry',
    code: outcome.code,
    message: outcome.message,
    delayMs: Math.max(backoff, outcome.retryAfterMs ?? 0),
    quotaDeferral,
  };
}

function lookUp(message: string, tries: number, policy: DeliveryPolicy): DeliveryDecision & { kind: 'reconcile' } {
  const delays = policy.reconcileDelaysMs;
  return { kind: 'reconcile', message, delayMs: delays[Math.min(tries, delays.length - 1)] ?? 5000, tries };
}

function outcomeUnknown(reason: string, { attempt, network }: DeliveryState): DeliveryDecision & { kind: 'finish' } {
  return {
    kind: 'finish',
    outcome: {
      kind: 'failed',
      code: deliveryErrorCodes.outcomeUnknown,
      message: `Whether attempt ${attempt} reached ${network} is unknown: ${reason}. It was not posted again to avoid a duplicate; check the account and publish again if it is missing.`,
    },
  };
}

/** A failed network call as an outcome: permanent, retryable, or uncertain (the post may exist). */
export function classifyFailure(
  network: string,
  attempt: number,
  error: unknown,
): Exclude<AttemptOutcome, { kind: 'published' }> {
  if (!isProviderError(error)) {
    return {
      kind: 'uncertain',
      message: `An unexpected error interrupted the call to ${network}; checking whether the post went through before anything else.`,
    };
  }
  if (error.uncertain)
    return {
      kind: 'uncertain',
      message: `${network} gave no clear answer (${error.networkCode ?? error.kind}: ${error.networkMessage}); checking whether the post exists before posting again.`,
    };
  // A "duplicate" refusal after an earlier attempt may be that attempt's own post: look it up.
  if (error.kind === 'duplicate' && attempt > 1)
    return {
      kind: 'uncertain',
      message: `${network} refused attempt ${attempt} as a duplicate; checking whether an earlier attempt published it.`,
    };
  // Processing that outlasts the wait inside a slot is not a refusal: the next attempt resumes from the upload.
  const message =
    error.networkCode === 'media_processing'
      ? `${network}: ${error.networkMessage}`
      : `${network} refused the post (${error.kind}): ${error.networkMessage}`;
  if (error.retryable) return { kind: 'retry', code: error.kind, message, retryAfterMs: error.retryAfterMs };
  return { kind: 'failed', code: error.kind, message };
}

/**
 * The account is gone or needs reconnecting since the job was accepted: that target fails, the others
 * go on. Undefined when the error says neither (accounts unreachable).
 */
export function accountLost(
  delivery: { provider: string; accountId: string },
  error: unknown,
): Extract<AttemptOutcome, { kind: 'failed' }> | undefined {
  if (!isAppError(error)) return undefined;
  if (error.code === 'not_found') {
    return {
      kind: 'failed',
      code: deliveryErrorCodes.accountDeleted,
      message: `The ${delivery.provider} account ${delivery.accountId} was deleted after the job was accepted.`,
    };
  }
  if (error.code === 'conflict') {
    return {
      kind: 'failed',
      code: deliveryErrorCodes.accountUnusable,
      message: `The ${delivery.provider} account ${delivery.accountId} needs reconnecting: ${error.message}`,
    };
  }
  return undefined;
}
