import { type Classification, type ProviderErrorKind } from '../errors/provider-error.ts';
import { asRecord, asString, retryAfterHeader, type NetworkResponse } from '../http/network-response.ts';

/** TikTok's 1-minute sliding window (docs/networks.md §5.3): used when no Retry-After comes (none is documented). */
const RATE_WINDOW_MS = 60_000;

const API_KINDS: Record<string, ProviderErrorKind> = {
  access_token_invalid: 'auth_expired',
  scope_not_authorized: 'permission_missing',
  scope_permission_missed: 'permission_missing',
  rate_limit_exceeded: 'rate_limited',
  spam_risk_too_many_posts: 'quota_exhausted',
  spam_risk_too_many_pending_share: 'quota_exhausted',
  reached_active_user_cap: 'quota_exhausted',
  spam_risk: 'duplicate',
  spam_risk_text: 'duplicate',
  spam_risk_user_banned_from_posting: 'permission_missing',
  unaudited_client_can_only_post_to_private_accounts: 'permission_missing',
  url_ownership_unverified: 'permission_missing',
  privacy_level_option_mismatch: 'validation',
  invalid_params: 'validation',
  invalid_file_upload: 'media_invalid',
  app_version_check_failed: 'validation',
  internal_error: 'transient',
};

/**
 * TikTok's daily caps: the creator's posts per 24 hours (`spam_risk_too_many_posts`), pending inbox
 * shares per 24 hours, and the client's active publishers per day (content-posting-api-reference-
 * direct-post error table; developers.tiktok.com/doc/content-sharing-guidelines). No reset time is
 * given, so the account is deferred a whole window: retrying at once only spends the creator's
 * patience and the client's 6-a-minute init budget on certain refusals.
 */
const DAILY_WINDOW_MS = 86_400_000;
const quotaRetryMs = (kind: ProviderErrorKind) => (kind === 'quota_exhausted' ? DAILY_WINDOW_MS : undefined);

const OAUTH_KINDS: Record<string, ProviderErrorKind> = {
  invalid_grant: 'auth_revoked',
  access_denied: 'auth_revoked',
  invalid_client: 'permission_missing',
  unauthorized_client: 'permission_missing',
  invalid_scope: 'permission_missing',
};

/**
 * Pure classifier for TikTok Open API v2 (docs/networks.md §5.3): `{"data":{},"error":{code,message,log_id}}`
 * and OAuth `{error, error_description, log_id}`. Also used on HTTP 200 answers whose code is not `ok`.
 */
export function classifyTikTok(response: NetworkResponse, nowMs: number): Classification {
  const body = asRecord(typeof response.data === 'string' ? parseJson(response.data) : response.data);
  const oauth = asString(body.error);
  if (oauth !== undefined) {
    return {
      kind: OAUTH_KINDS[oauth] ?? 'validation',
      networkCode: oauth,
      networkMessage: asString(body.error_description) ?? oauth,
    };
  }
  const error = asRecord(body.error);
  const code = asString(error.code);
  const message = asString(error.message) || `HTTP ${response.status}`;
  const kind: ProviderErrorKind =
    (code ? API_KINDS[code] : undefined) ??
    (response.status === 429
      ? 'rate_limited'
      : response.status === 401
        ? 'auth_expired'
        : response.status >= 500
          ? 'transient'
          : code?.startsWith('spam_risk')
            ? 'quota_exhausted'
            : 'validation');
  return {
    kind,
    networkCode: code ?? String(response.status),
    networkMessage: message,
    retryAfterMs:
      kind === 'rate_limited' ? (retryAfterHeader(response.headers, nowMs) ?? RATE_WINDOW_MS) : quotaRetryMs(kind),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const MEDIA_FAILURES = /(_check_failed|_pull_failed)$/;

/** A publish that ended `FAILED`, by its `fail_reason`. */
export function classifyPublishFailure(failReason: string): Classification {
  const base = {
    networkCode: failReason || 'FAILED',
    networkMessage: `TikTok could not publish the post (${failReason || 'no reason given'}).`,
  };
  if (MEDIA_FAILURES.test(failReason)) return { ...base, kind: 'media_invalid' };
  if (failReason === 'auth_removed') return { ...base, kind: 'auth_revoked' };
  if (failReason === 'internal') return { ...base, kind: 'transient' };
  if (failReason.startsWith('spam_risk')) {
    const kind = API_KINDS[failReason] ?? 'quota_exhausted';
    return { ...base, kind, ...(kind === 'quota_exhausted' ? { retryAfterMs: DAILY_WINDOW_MS } : {}) };
  }
  return { ...base, kind: 'validation' };
}
