import { isProviderError, networkLabels, type Credentials, type MediaInput, type Network } from '@svc/providers';
import type { DeliveryToRun } from '../data/delivery-to-run.ts';
import type { AccountCredentials } from './accounts-client.ts';
import { accountLost, type AttemptOutcome, type DeliveryDecision, type FinalOutcome } from './delivery-decision.ts';
import type { RunDeliveryDeps } from './run-delivery.ts';

/** A network call made with the account's token (an expired one refreshed once): its value, or how it failed. */
export type Called<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'error'; error: unknown }
  /** The failure is already an outcome (the account was lost, or its token could not be refreshed for now). */
  | { kind: 'outcome'; outcome: Exclude<AttemptOutcome, { kind: 'published' }> };

/**
 * What the steps of a delivery beyond a single post use of its runner (domain/run-delivery.ts): a
 * thread's parts (thread-delivery.ts) and a post's first comment (first-comment.ts).
 */
export interface DeliverySteps {
  readonly deps: RunDeliveryDeps;
  /** One post to the network in attempt `number` (a thread's part answers `inReplyTo`). */
  attempt(
    delivery: DeliveryToRun,
    attempt: { number: number; resume: string | null },
    credentials: AccountCredentials,
    post: { text: string; media: MediaInput[]; options: Record<string, unknown>; inReplyTo?: string | undefined },
    requestId: string | null,
  ): Promise<AttemptOutcome>;
  finish(delivery: DeliveryToRun, attempt: number, outcome: FinalOutcome): Promise<boolean | undefined>;
  putBack(
    delivery: DeliveryToRun,
    attempt: number,
    next: Extract<DeliveryDecision, { kind: 'retry' | 'reconcile' }>,
    requestId: string | null,
  ): Promise<void>;
  persistently<T>(delivery: DeliveryToRun, write: () => Promise<T>): Promise<T>;
  withToken<T>(
    delivery: DeliveryToRun,
    credentials: AccountCredentials,
    requestId: string | null,
    call: (credentials: Credentials) => Promise<T>,
  ): Promise<Called<T>>;
}

/**
 * Makes a network call with the account's token. An expired token is refreshed once (accounts marks
 * the account requires_reconnect if that fails) and the call made once more.
 */
export async function callWithToken<T>(
  deps: Pick<RunDeliveryDeps, 'accounts'>,
  delivery: DeliveryToRun,
  first: AccountCredentials,
  requestId: string | null,
  call: (credentials: Credentials) => Promise<T>,
): Promise<Called<T>> {
  const token = (credentials: AccountCredentials): Credentials => ({
    accessToken: credentials.access_token,
    extras: credentials.extras,
  });
  let refused: 'auth_expired' | 'auth_revoked';
  try {
    return { kind: 'ok', value: await call(token(first)) };
  } catch (error) {
    if (!isProviderError(error) || (error.kind !== 'auth_expired' && error.kind !== 'auth_revoked'))
      return { kind: 'error', error };
    refused = error.kind;
  }
  // A token the network refused as expired or revoked: accounts renews it once (a refresh, or the
  // profile read that re-validates a token it cannot refresh). If the network refuses that too, the
  // account is marked requires_reconnect or revoked and connection.revoked is announced, and the
  // target fails account_unusable; otherwise one more call with the token accounts gave.
  let refreshed: AccountCredentials;
  try {
    refreshed = await deps.accounts.credentials(delivery.orgId, delivery.accountId, true, requestId);
  } catch (error) {
    const lost = accountLost(delivery, error);
    if (lost !== undefined) return { kind: 'outcome', outcome: lost };
    return {
      kind: 'outcome',
      outcome: {
        kind: 'retry',
        code: refused,
        message: `${networkLabels[delivery.provider as Network]} refused the token (${refused === 'auth_expired' ? 'expired' : 'revoked'}) and checking it again failed for now.`,
        retryAfterMs: undefined,
      },
    };
  }
  try {
    return { kind: 'ok', value: await call(token(refreshed)) };
  } catch (error) {
    return { kind: 'error', error };
  }
}
