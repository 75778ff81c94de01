/**
 * The public error codes (docs/api-conventions.md, "Errors"), with the HTTP status each one maps to.
 * Wire values never change in place: clients branch on them.
 */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  plan_limit_reached: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  link_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_conflict: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}
