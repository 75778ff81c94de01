import { ERROR_STATUS, type ErrorCode } from './error-codes.ts';

export interface ErrorDetail {
  /** Where the problem is, e.g. a JSON pointer such as `/body/account_ids/0`. */
  path?: string;
  message: string;
  [key: string]: unknown;
}

export interface AppErrorOptions {
  status?: number;
  retryable?: boolean;
  details?: ErrorDetail[];
  cause?: unknown;
  /** Extra response headers, e.g. `Retry-After` for 429. */
  headers?: Record<string, string>;
}

/**
 * The one error type that crosses layers. Callers branch on `code`, never on `message`.
 * A message meant for API users must be a full human sentence.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.retryable = options.retryable ?? false;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export const validationError = (message: string, details?: ErrorDetail[]) =>
  new AppError('validation_error', message, details === undefined ? {} : { details });
export const notFound = (what: string) => new AppError('not_found', `${what} was not found.`);
export const conflict = (message: string) => new AppError('conflict', message);
export const unauthorized = (message = 'A valid API key or dashboard token is required.') =>
  new AppError('unauthorized', message);
export const forbidden = (message: string) => new AppError('forbidden', message);
