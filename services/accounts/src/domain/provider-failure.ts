import { AppError } from '@svc/errors';
import { isProviderError, networkLabels as LABEL, type ProviderError } from '@svc/providers';

/**
 * A network refusing credentials the user gave us (a BYOK token, an authorization code) is the
 * user's problem to fix: 400 with the network's own words. A network that is down or limiting us is
 * not: 503 with Retry-After, so the client can try again.
 */
export function credentialRejection(error: unknown, what: string): AppError {
  if (!isProviderError(error)) throw error;
  if (error.retryable) {
    return new AppError(
      'service_unavailable',
      `${LABEL[error.network]} is not answering right now (${error.networkMessage}); try again later.`,
      {
        retryable: true,
        cause: error,
        ...(error.retryAfterMs === undefined
          ? {}
          : { headers: { 'Retry-After': String(Math.ceil(error.retryAfterMs / 1000)) } }),
      },
    );
  }
  return new AppError('validation_error', `${LABEL[error.network]} rejected ${what}: ${error.networkMessage}`, {
    cause: error,
    details: [
      {
        message: error.networkMessage,
        kind: error.kind,
        network: error.network,
        ...(error.networkCode === undefined ? {} : { network_code: error.networkCode }),
      },
    ],
  });
}

/** Whether a failed refresh means the connection is gone (the user must reconnect) rather than a blip. */
export function connectionLost(error: ProviderError): boolean {
  return (
    error.kind === 'auth_revoked' ||
    error.kind === 'auth_expired' ||
    error.kind === 'permission_missing' ||
    error.kind === 'validation'
  );
}
