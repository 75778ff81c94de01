import { type Classification, type ProviderErrorKind } from '../errors/provider-error.ts';
import { asNumber, asRecord, asString, retryAfterHeader, type NetworkResponse } from '../http/network-response.ts';

/** Graph throttling codes (docs/networks.md §2.3, META-RATE): app, user, Pages, custom, BUC. */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 341, 613, 80001, 80002, 80003, 80004, 80005, 80006, 80008, 80009, 80014]);
/** Media rejected for what it is: size, format, aspect ratio, download failure (docs/networks.md §1.3). */
const MEDIA_SUBCODES = new Set([
  2207004, 2207005, 2207009, 2207026, 2207023, 2207057, 2207052, 2207028, 2069019, 1366046, 2061006, 1363008, 2207006,
  2207008, 2207020,
]);
const TRANSIENT_SUBCODES = new Set([2207027, 2207001, 2207003, 2207032, 2207053, 1363047, 1609010]);

/**
 * Seconds until Graph lets the caller back in: `estimated_time_to_regain_access` (minutes) of the
 * Business Use Case header, else `Retry-After`. Graph's platform header (`x-app-usage`) gives no time.
 */
export function graphRetryAfterMs(headers: Record<string, string | undefined>, nowMs: number): number | undefined {
  let minutes: number | undefined;
  for (const name of ['x-business-use-case-usage', 'x-ad-account-usage']) {
    const raw = headers[name];
    if (!raw) continue;
    try {
      const parsed = asRecord(JSON.parse(raw));
      for (const entries of Object.values(parsed)) {
        for (const entry of Array.isArray(entries) ? entries : [entries]) {
          const value = asNumber(asRecord(entry).estimated_time_to_regain_access);
          if (value !== undefined && value > 0) minutes = Math.max(minutes ?? 0, value);
        }
      }
    } catch {
      // A malformed usage header is ignored: the error code alone still says "rate limited".
    }
  }
  return minutes !== undefined ? minutes * 60_000 : retryAfterHeader(headers, nowMs);
}

function kindOf(
  status: number,
  code: number | undefined,
  subcode: number | undefined,
  transient: boolean,
): ProviderErrorKind {
  if (code === 190 || code === 102)
    // 463 is plain expiry; 458/460/467/492... and an unparsable token all need a new login.
    return subcode === 463 ? 'auth_expired' : 'auth_revoked';
  if (subcode === 1404078) return 'permission_missing';
  if (subcode === 1390008) return 'rate_limited';
  if (code === 9 && subcode === 2207042) return 'quota_exhausted';
  // 368: temporarily blocked for policy reasons; retrying soon does not help.
  if (code === 368) return 'quota_exhausted';
  if (code !== undefined && RATE_LIMIT_CODES.has(code)) return 'rate_limited';
  if (code === 506 || subcode === 1366051) return 'duplicate';
  if (code === 10 || (code !== undefined && code >= 200 && code <= 299)) return 'permission_missing';
  if (subcode !== undefined && TRANSIENT_SUBCODES.has(subcode)) return 'transient';
  if (subcode !== undefined && MEDIA_SUBCODES.has(subcode)) return 'media_invalid';
  if (code === 9004 || code === 324) return 'media_invalid';
  if (code === 1 || code === 2 || transient || status >= 500) return 'transient';
  return 'validation';
}

/**
 * Pure classifier for Graph API errors (Facebook Pages and Instagram), by `code`/`error_subcode`,
 * never by message text. Throttling arrives as HTTP 400 as often as 429, hence codes first.
 */
export function classifyGraph(response: NetworkResponse, nowMs: number): Classification {
  const error = asRecord(asRecord(response.data).error);
  const code = asNumber(error.code);
  const subcode = asNumber(error.error_subcode);
  const kind =
    code === undefined && response.status === 429
      ? 'rate_limited'
      : kindOf(response.status, code, subcode, error.is_transient === true);
  const message = asString(error.error_user_msg) ?? asString(error.message) ?? `HTTP ${response.status}`;
  return {
    kind,
    networkCode: code === undefined ? undefined : subcode === undefined ? String(code) : `${code}/${subcode}`,
    networkMessage: message,
    retryAfterMs: kind === 'rate_limited' ? graphRetryAfterMs(response.headers, nowMs) : undefined,
  };
}
