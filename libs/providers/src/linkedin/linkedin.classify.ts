import { type Classification, type ProviderErrorKind } from '../errors/provider-error.ts';
import { asNumber, asRecord, asString, retryAfterHeader, type NetworkResponse } from '../http/network-response.ts';
import { msUntilNextUtcDay } from '../http/quota-reset.ts';

/**
 * Pure classifier for LinkedIn (docs/networks.md §4.3): REST bodies `{status, serviceErrorCode, code,
 * message}`, 422 `errorDetails.inputErrors[].code`, and OAuth `{error, error_description}`.
 * LinkedIn sends no rate-limit headers: its limits are per application and per member per day and
 * reset at midnight UTC (learn.microsoft.com linkedin/shared/api-guide/concepts/rate-limits), so a
 * 429 defers to then (or to `Retry-After` if one ever appears) instead of hitting the cap again.
 */
/**
 * Versions are sunset about a year after release (learn.microsoft.com linkedin/marketing/versioning)
 * and LinkedIn then answers 426 NONEXISTENT_VERSION to every call. No retry can help and nothing in
 * the post is wrong: the message tells the operator what to change. Kept `validation` so it is never retried.
 */
const versionMessage = (message: string) =>
  `${message}. The LinkedIn API version this service sends (LINKEDIN_VERSION) is not served any more: set it to a version released within the last 12 months (YYYYMM).`;

export function classifyLinkedIn(response: NetworkResponse, nowMs: number): Classification {
  const body = asRecord(response.data);
  const oauthError = asString(body.error);
  if (oauthError !== undefined) {
    const kind: ProviderErrorKind =
      oauthError === 'invalid_client'
        ? 'permission_missing'
        : oauthError === 'invalid_grant'
          ? 'auth_revoked'
          : 'validation';
    return { kind, networkCode: oauthError, networkMessage: asString(body.error_description) ?? oauthError };
  }
  const code = asString(body.code);
  const serviceErrorCode = asNumber(body.serviceErrorCode);
  const inputErrors = asRecord(body.errorDetails).inputErrors;
  const inputCode = Array.isArray(inputErrors) ? asString(asRecord(inputErrors[0]).code) : undefined;
  const message = asString(body.message) ?? `HTTP ${response.status}`;
  const networkCode =
    inputCode ?? code ?? (serviceErrorCode === undefined ? String(response.status) : String(serviceErrorCode));
  const base = { networkCode, networkMessage: message };
  const { status } = response;

  if (inputCode === 'DUPLICATE_POST') return { ...base, kind: 'duplicate' };
  if (status === 429)
    return {
      ...base,
      kind: 'quota_exhausted',
      retryAfterMs: retryAfterHeader(response.headers, nowMs) ?? msUntilNextUtcDay(nowMs),
    };
  if (status === 401) {
    if (code === 'REVOKED_ACCESS_TOKEN' || serviceErrorCode === 65601) return { ...base, kind: 'auth_revoked' };
    if (code === 'INVALID_ACCESS_TOKEN') return { ...base, kind: 'auth_revoked' };
    return { ...base, kind: 'auth_expired' };
  }
  if (status === 403) return { ...base, kind: 'permission_missing' };
  if (status === 426 || code === 'VERSION_MISSING' || code === 'NONEXISTENT_VERSION')
    return { ...base, kind: 'validation', networkMessage: versionMessage(message) };
  if (status >= 500) return { ...base, kind: 'transient' };
  return { ...base, kind: 'validation' };
}

/** An uploaded image or video whose processing failed. */
export function classifyAssetStatus(status: unknown, reason: unknown): Classification | undefined {
  if (status !== 'PROCESSING_FAILED') return undefined;
  return {
    kind: 'media_invalid',
    networkCode: 'PROCESSING_FAILED',
    networkMessage: asString(reason) ?? 'LinkedIn could not process the media.',
  };
}
