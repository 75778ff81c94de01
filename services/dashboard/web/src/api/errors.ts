import { SvcApiError, SvcNetworkError } from '@svc/sdk';
import { AuthError } from './session.ts';

/** One sentence for a failed call, with the request id when the API gave one (for support). */
export function describeError(error: unknown): string {
  if (error instanceof SvcApiError)
    return error.requestId === undefined ? error.message : `${error.message} (request ${error.requestId})`;
  if (error instanceof AuthError) return error.message;
  if (error instanceof SvcNetworkError) return 'The dashboard cannot reach the API right now; try again shortly.';
  return error instanceof Error ? error.message : 'Something went wrong.';
}
