import { assertNever, isAppError } from '@svc/errors';
import { isProviderError, networkLabels as LABEL, type Network } from '@svc/providers';

/**
 * What a failure of a whole account call means for its rows (spec Errors rule 2: per row, never an
 * HTTP error). `later` leaves the rows as they are and looks again at `retryAt`; `pause` does the
 * same and also keeps every other call away from the account until then (429).
 */
export type AccountOutcome =
  | { kind: 'requires_reconnect' | 'failed'; message: string }
  | { kind: 'pause'; untilMs: number; reason: string }
  | { kind: 'later'; retryInMs: number; reason: string }
  | { kind: 'refresh_token' };

/** An outcome that settles the rows (everything but "renew the token and try again"). */
export type SettledOutcome = Exclude<AccountOutcome, { kind: 'refresh_token' }>;

export interface OutcomeSettings {
  /** How long a 429 without a reset time keeps an account paused. */
  rateLimitDeferMs: number;
  /** When a transient failure (network down, accounts unavailable) is tried again. */
  transientRetryMs: number;
}

/** Failures of the credentials RPC (accounts answers 409 for an account needing reconnection, 404 when gone). */
export function credentialsFailure(error: unknown, platform: Network, settings: OutcomeSettings): SettledOutcome {
  if (isAppError(error) && error.code === 'conflict')
    return {
      kind: 'requires_reconnect',
      message: `The ${LABEL[platform]} account needs reconnecting: ${error.message}`,
    };
  if (isAppError(error) && error.code === 'not_found')
    return { kind: 'failed', message: `The ${LABEL[platform]} account is no longer connected.` };
  return { kind: 'later', retryInMs: settings.transientRetryMs, reason: 'credentials unavailable' };
}

/** Failures of a network call, by the provider taxonomy (never by message text). */
export function networkFailure(
  error: unknown,
  platform: Network,
  nowMs: number,
  settings: OutcomeSettings,
  tokenRefreshed: boolean,
): AccountOutcome {
  if (!isProviderError(error))
    return { kind: 'later', retryInMs: settings.transientRetryMs, reason: 'unexpected failure' };
  const said = `${LABEL[platform]} said: ${error.networkMessage}`;
  switch (error.kind) {
    // A refused token goes back to accounts once, which refreshes or re-validates it: that is where a
    // revocation is recorded on the account and announced (connection.revoked), as for publishing.
    case 'auth_expired':
    case 'auth_revoked':
      if (!tokenRefreshed) return { kind: 'refresh_token' };
      return {
        kind: 'requires_reconnect',
        message:
          error.kind === 'auth_expired'
            ? `The ${LABEL[platform]} token expired and could not be renewed. ${said}`
            : `The ${LABEL[platform]} token was revoked. ${said}`,
      };
    case 'permission_missing':
      return {
        kind: 'failed',
        message: `The ${LABEL[platform]} account did not grant permission to read analytics (reconnect granting it). ${said}`,
      };
    case 'rate_limited':
    case 'quota_exhausted':
      return {
        kind: 'pause',
        untilMs: nowMs + (error.retryAfterMs ?? settings.rateLimitDeferMs),
        reason: `${error.kind}: ${error.networkMessage}`,
      };
    case 'transient':
      return { kind: 'later', retryInMs: settings.transientRetryMs, reason: error.networkMessage };
    case 'duplicate':
    case 'media_invalid':
    case 'validation':
      return { kind: 'failed', message: `${LABEL[platform]} refused the analytics request. ${said}` };
    default:
      return assertNever(error.kind);
  }
}
