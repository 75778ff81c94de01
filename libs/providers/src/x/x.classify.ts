import { type Classification, type ProviderErrorKind } from '../errors/provider-error.ts';
import { asNumber, asRecord, asString, retryAfterHeader, type NetworkResponse } from '../http/network-response.ts';

/**
 * X gives no machine code for duplicate content in v2, only this detail (and legacy code 187);
 * matching the documented sentence is the one place this classifier reads text.
 */
const DUPLICATE_DETAIL = /duplicate content/i;

function resetMs(headers: Record<string, string | undefined>, name: string, nowMs: number): number | undefined {
  const reset = asNumber(headers[name]);
  return reset === undefined ? undefined : Math.max(0, reset * 1000 - nowMs);
}

const slug = (type: string | undefined) => (type && type !== 'about:blank' ? type.split('/').pop() : undefined);

/**
 * Pure classifier for X API v2 (networks.md §3.3): problem+json bodies, OAuth token errors, legacy
 * `{errors:[{code}]}`, rate-limit and 24-hour headers.
 */
export function classifyX(response: NetworkResponse, nowMs: number): Classification {
  const body = asRecord(response.data);
  const { status, headers } = response;
  // OAuth 2.0 token endpoint: the grant (refresh token or code) is unusable.
  const oauthError = asString(body.error);
  if (oauthError !== undefined) {
    const kind: ProviderErrorKind = oauthError === 'invalid_client' || oauthError === 'unauthorized_client' ? 'permission_missing' : 'auth_revoked';
    return { kind, networkCode: oauthError, networkMessage: asString(body.error_description) ?? oauthError };
  }
  const legacy = asRecord(Array.isArray(body.errors) ? body.errors[0] : undefined);
  const legacyCode = body.title === undefined ? asNumber(legacy.code) : undefined;
  const type = asString(body.type);
  const detail = asString(body.detail) ?? asString(legacy.message) ?? asString(body.title) ?? `HTTP ${status}`;
  const networkCode = slug(type) ?? (legacyCode === undefined ? String(status) : String(legacyCode));
  const base = { networkCode, networkMessage: detail };

  if (status === 429 || legacyCode === 88 || slug(type) === 'rate-limit-exceeded') {
    if (headers['x-user-limit-24hour-remaining'] === '0') {
      return { ...base, kind: 'quota_exhausted', retryAfterMs: resetMs(headers, 'x-user-limit-24hour-reset', nowMs) };
    }
    if (headers['x-app-limit-24hour-remaining'] === '0') {
      return { ...base, kind: 'quota_exhausted', retryAfterMs: resetMs(headers, 'x-app-limit-24hour-reset', nowMs) };
    }
    return { ...base, kind: 'rate_limited', retryAfterMs: resetMs(headers, 'x-rate-limit-reset', nowMs) ?? retryAfterHeader(headers, nowMs) };
  }
  if (slug(type) === 'usage-capped') return { ...base, kind: 'quota_exhausted', retryAfterMs: retryAfterHeader(headers, nowMs) };
  if (status === 401 || legacyCode === 89) return { ...base, kind: 'auth_expired' };
  if (legacyCode === 187 || (status === 403 && DUPLICATE_DETAIL.test(detail))) return { ...base, kind: 'duplicate', networkCode: 'duplicate-content' };
  if (status === 403 && (slug(type) === 'client-forbidden' || slug(type) === 'not-authorized-for-resource' || slug(type) === 'unsupported-authentication')) {
    return { ...base, kind: 'permission_missing' };
  }
  if (status >= 500) return { ...base, kind: 'transient' };
  return { ...base, kind: 'validation' };
}

/** Media whose processing failed (`processing_info.state = failed`) was refused for what it is. */
export function classifyMediaProcessing(info: unknown): Classification | undefined {
  const record = asRecord(info);
  if (record.state !== 'failed') return undefined;
  const error = asRecord(record.error);
  return { kind: 'media_invalid', networkCode: asString(error.name) ?? 'processing_failed', networkMessage: asString(error.message) ?? 'X could not process the media.' };
}
