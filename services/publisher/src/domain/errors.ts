import type { ProviderErrorKind } from '@svc/providers';

/**
 * Why a target failed, as `error_code` on its result. Network failures keep the provider taxonomy's
 * kind (auth_revoked, duplicate, validation...); these are the publisher's own.
 */
export const deliveryErrorCodes = {
  /** The account was deleted after the job was accepted. */
  accountDeleted: 'account_deleted',
  /** The account needs reconnecting (revoked or a refresh failed) since the job was accepted. */
  accountUnusable: 'account_unusable',
  /**
   * The attempt's outcome was uncertain (worker died mid-call, timeout or 5xx after sending) and the
   * network could not be asked whether the post exists: it is never re-posted blindly.
   */
  outcomeUnknown: 'outcome_unknown',
  /** The attempt's outcome is uncertain and is being looked up (while the delivery waits, pending). */
  reconciling: 'reconciling',
  /** Retryable failures went on past DELIVERY_MAX_ATTEMPTS. */
  retriesExhausted: 'retries_exhausted',
  /** Something failed on our side during the network call; not retried, the post may exist. */
  internalError: 'internal_error',
} as const;

export type DeliveryErrorCode = (typeof deliveryErrorCodes)[keyof typeof deliveryErrorCodes] | ProviderErrorKind;
