import { type Classification, type ProviderErrorKind } from '../errors/provider-error.ts';
import { asNumber, asRecord, asString, retryAfterHeader, type NetworkResponse } from '../http/network-response.ts';
import { msUntilNextUtcDay, msUntilNextUtcMonth } from '../http/quota-reset.ts';

/**
 * X gives no machine code for duplicate content in v2, only this detail (and legacy code 187);
 * matching the documented sentence is the one place this classifier reads text.
 */
const DUPLICATE_DETAIL = /duplicate content/i;

function resetMs(headers: Record<string, string | undefined>, name: string, nowMs: number): number | undefined {
  const reset = asNumber(headers[name]);
  return reset === undefined ? undefined : Math.max(0, reset * 1000 - nowMs);
}

/**
 * When a usage cap lifts. The problem body names its `period` (`Daily` or `Monthly`) but no time:
 * a daily cap waits for the 24-hour headers' reset when X sends them, else for midnight UTC; a
 * monthly cap for the first of the next month UTC (X resets on the billing cycle; the first is the
 * earliest a calendar month can turn, and a cap still in force then is simply deferred again).
 */
function usageCapResetMs(
  body: Record<string, unknown>,
  headers: Record<string, string | undefined>,
  nowMs: number,
): number {
  const explicit = retryAfterHeader(headers, nowMs);
  if (explicit !== undefined) return explicit;
  if (asString(body.period)?.toLowerCase() === 'monthly') return msUntilNextUtcMonth(nowMs);
  return (
    resetMs(headers, 'x-user-limit-24hour-reset', nowMs) ??
    resetMs(headers, 'x-app-limit-24hour-reset', nowMs) ??
    msUntilNextUtcDay(nowMs)
  );
}

const slug = (type: string | undefined) => (type && type !== 'about:blank' ? type.split('/').pop() : undefined);

/**
 * Pure classifier for X API v2 (docs/networks.md §3.3): problem+json bodies, OAuth token errors, legacy
 * `{errors:[{code}]}`, rate-limit and 24-hour headers.
 */
export function classifyX(response: NetworkResponse, nowMs: number): Classification {
  const body = asRecord(response.data);
  const { status, headers } = response;
  // OAuth 2.0 token endpoint: the grant (refresh token or code) is unusable.
  const oauthError = asString(body.error);
  if (oauthError !== undefined) {
    const kind: ProviderErrorKind =
      oauthError === 'invalid_client' || oauthError === 'unauthorized_client' ? 'permission_missing' : 'auth_revoked';
    return { kind, networkCode: oauthError, networkMessage: asString(body.error_description) ?? oauthError };
  }
  const legacy = asRecord(Array.isArray(body.errors) ? body.errors[0] : undefined);
  const legacyCode = body.title === undefined ? asNumber(legacy.code) : undefined;
  const type = asString(body.type);
  const detail = asString(body.detail) ?? asString(legacy.message) ?? asString(body.title) ?? `HTTP ${status}`;
  const networkCode = slug(type) ?? (legacyCode === undefined ? String(status) : String(legacyCode));
  const base = { networkCode, networkMessage: detail };

  // Usage caps come as 429 too, but they are the plan's daily or monthly post/read budget, not the
  // 15-minute window: waiting for x-rate-limit-reset would only hit the cap again (docs.x.com
  // x-api/fundamentals/rate-limits and post-cap; recorded body: xdevplatform/xdk#25).
  if (slug(type) === 'usage-capped')
    return { ...base, kind: 'quota_exhausted', retryAfterMs: usageCapResetMs(body, headers, nowMs) };
  if (status === 429 || legacyCode === 88 || slug(type) === 'rate-limit-exceeded') {
    if (headers['x-user-limit-24hour-remaining'] === '0') {
      return { ...base, kind: 'quota_exhausted', retryAfterMs: resetMs(headers, 'x-user-limit-24hour-reset', nowMs) };
    }
    if (headers['x-app-limit-24hour-remaining'] === '0') {
      return { ...base, kind: 'quota_exhausted', retryAfterMs: resetMs(headers, 'x-app-limit-24hour-reset', nowMs) };
    }
    return {
      ...base,
      kind: 'rate_limited',
      retryAfterMs: resetMs(headers, 'x-rate-limit-reset', nowMs) ?? retryAfterHeader(headers, nowMs),
    };
  }
  if (status === 401 || legacyCode === 89) return { ...base, kind: 'auth_expired' };
  if (legacyCode === 187 || (status === 403 && DUPLICATE_DETAIL.test(detail)))
    return { ...base, kind: 'duplicate', networkCode: 'duplicate-content' };
  if (
    status === 403 &&
    (slug(type) === 'client-forbidden' ||
      slug(type) === 'not-authorized-for-resource' ||
      slug(type) === 'unsupported-authentication')
  ) {
    return { ...base, kind: 'permission_missing' };
  }
  // A token without the endpoint's scope gets a bare "Forbidden" problem (plhery/node-twitter-api-v2#265),
  // unlike content refusals, which say what is wrong ("You are not permitted to perform this action.").
  if (status === 403 && (slug(type) === undefined || type === 'about:blank') && detail === 'Forbidden')
    return { ...base, kind: 'permission_missing' };
  if (status >= 500) return { ...base, kind: 'transient' };
  return { ...base, kind: 'validation' };
}

/** Media whose processing failed (`processing_info.state = failed`) was refused for what it is. */
export function classifyMediaProcessing(info: unknown): Classification | undefined {
  const record = asRecord(info);
  if (record.state !== 'failed') return undefined;
  const error = asRecord(record.error);
  return {
    kind: 'media_invalid',
    networkCode: asString(error.name) ?? 'processing_failed',
    networkMessage: asString(error.message) ?? 'X could not process the media.',
  };
}
