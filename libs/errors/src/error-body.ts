import { AppError, isAppError, type ErrorDetail } from './app-error.ts';
import { isErrorCode, type ErrorCode } from './error-codes.ts';
import { unavailableError } from './unavailable.ts';

/** The error body (docs/api-conventions.md, "Errors"), the same for every failure of every endpoint. */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
    request_id: string;
  };
}

const GENERIC_MESSAGE = 'Something went wrong on our side. Quote the request id when you contact support.';

/**
 * Non-AppErrors are internal failures, unless they only say a dependency is down or full (503,
 * unavailable.ts); their message may hold secrets, so it is never shown.
 */
export function toErrorBody(error: unknown, requestId: string): { status: number; body: ErrorBody } {
  const appError = isAppError(error)
    ? error
    : (unavailableError(error) ?? new AppError('internal_error', GENERIC_MESSAGE, { cause: error }));
  const message = appError.status >= 500 && appError.code === 'internal_error' ? GENERIC_MESSAGE : appError.message;
  const body: ErrorBody = { error: { code: appError.code, message, request_id: requestId } };
  if (appError.details && appError.details.length > 0) body.error.details = appError.details;
  return { status: appError.status, body };
}

/** Rebuilds an AppError from an error body received over RPC or HTTP, so it keeps its code. */
export function fromErrorBody(value: unknown): AppError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, details } = error as { code?: unknown; message?: unknown; details?: unknown };
  if (!isErrorCode(code) || typeof message !== 'string') return undefined;
  if (!Array.isArray(details)) return new AppError(code, message);
  // Headers do not travel in the body: a 429 or 503 carries its wait as a detail to rebuild Retry-After.
  const wait = (details as ErrorDetail[]).find(
    (detail) => typeof detail.retry_after_seconds === 'number',
  )?.retry_after_seconds;
  const waits = (code === 'rate_limited' || code === 'service_unavailable') && typeof wait === 'number';
  return new AppError(code, message, {
    details: details as ErrorDetail[],
    ...(waits ? { retryable: true, headers: { 'Retry-After': String(wait) } } : {}),
  });
}
