import { classifyMediaProcessing, classifyX } from './x.classify.ts';

const NOW = Date.UTC(2026, 10, 22, 1, 0, 0);
const nowSeconds = NOW / 1000;
const res = (status: number, data: unknown, headers: Record<string, string> = {}) => ({ status, headers, data });

// Bodies from docs/networks.md §3.3 (XDOCS response-codes-and-errors, openapi) and widely recorded clients.
describe('classifyX', () => {
  it('401 problem -> auth_expired (refresh, then re-auth)', () => {
    expect(
      classifyX(res(401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' }), NOW),
    ).toEqual({ kind: 'auth_expired', networkCode: '401', networkMessage: 'Unauthorized' });
  });

  it('refresh with a used/revoked token -> auth_revoked', () => {
    expect(
      classifyX(
        res(400, { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' }),
        NOW,
      ),
    ).toEqual({
      kind: 'auth_revoked',
      networkCode: 'invalid_request',
      networkMessage: 'Value passed for the token was invalid.',
    });
    expect(
      classifyX(
        res(401, { error: 'unauthorized_client', error_description: 'Missing valid authorization header' }),
        NOW,
      ).kind,
    ).toBe('permission_missing');
  });

  it('429 takes the wait from x-rate-limit-reset', () => {
    const result = classifyX(
      res(
        429,
        { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
        { 'x-rate-limit-limit': '100', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(nowSeconds + 600) },
      ),
      NOW,
    );
    expect(result).toMatchObject({ kind: 'rate_limited', retryAfterMs: 600_000 });
  });

  it('429 with the 24-hour user window exhausted -> quota_exhausted until its reset', () => {
    const headers = {
      'x-rate-limit-remaining': '57',
      'x-rate-limit-reset': String(nowSeconds + 60),
      'x-user-limit-24hour-remaining': '0',
      'x-user-limit-24hour-reset': String(nowSeconds + 7200),
    };
    expect(
      classifyX(
        res(
          429,
          { title: 'Too Many Requests', status: 429, detail: 'Too Many Requests', type: 'about:blank' },
          headers,
        ),
        NOW,
      ),
    ).toMatchObject({ kind: 'quota_exhausted', retryAfterMs: 7_200_000 });
  });

  it('legacy v1.1-style 429 body still classifies', () => {
    expect(classifyX(res(429, { errors: [{ code: 88, message: 'Rate limit exceeded' }] }), NOW)).toMatchObject({
      kind: 'rate_limited',
      networkCode: '88',
      networkMessage: 'Rate limit exceeded',
    });
  });

  it('403 duplicate content -> duplicate; other 403s by problem type', () => {
    expect(
      classifyX(
        res(403, {
          detail: 'You are not allowed to create a Tweet with duplicate content.',
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
        }),
        NOW,
      ),
    ).toMatchObject({ kind: 'duplicate', networkCode: 'duplicate-content' });
    expect(
      classifyX(
        res(403, {
          title: 'Client Forbidden',
          type: 'https://api.x.com/2/problems/client-forbidden',
          detail: 'This request must be made using an approved developer account',
          status: 403,
        }),
        NOW,
      ),
    ).toMatchObject({
      kind: 'permission_missing',
      networkCode: 'client-forbidden',
    });
    expect(
      classifyX(
        res(403, {
          title: 'UsageCapExceeded',
          type: 'https://api.x.com/2/problems/usage-capped',
          detail: 'Usage cap exceeded',
          status: 403,
        }),
        NOW,
      ).kind,
    ).toBe('quota_exhausted');
    expect(
      classifyX(
        res(403, {
          detail: 'You are not permitted to perform this action.',
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
        }),
        NOW,
      ).kind,
    ).toBe('validation');
    // A token without the scope (plhery/node-twitter-api-v2#265).
    expect(
      classifyX(res(403, { title: 'Forbidden', type: 'about:blank', status: 403, detail: 'Forbidden' }), NOW).kind,
    ).toBe('permission_missing');
  });

  // Recorded 429 (xdevplatform/xdk#25): the 15-minute window is nearly untouched, the cap is the plan's.
  const usageCapped = (period: string) => ({
    account_id: '1234',
    product_name: 'standard-basic',
    title: 'UsageCapExceeded',
    period,
    scope: 'Product',
    detail: `Usage cap exceeded: ${period} product cap`,
    type: 'https://api.twitter.com/2/problems/usage-capped',
  });
  const windowHeaders = {
    'x-rate-limit-limit': '40000',
    'x-rate-limit-remaining': '39999',
    'x-rate-limit-reset': String(nowSeconds + 900),
  };

  it('429 usage-capped (Monthly) -> quota_exhausted until the first of next month UTC, not the 15-minute reset', () => {
    expect(classifyX(res(429, usageCapped('Monthly'), windowHeaders), NOW)).toEqual({
      kind: 'quota_exhausted',
      networkCode: 'usage-capped',
      networkMessage: 'Usage cap exceeded: Monthly product cap',
      retryAfterMs: Date.UTC(2026, 11, 1) - NOW,
    });
  });

  it('429 usage-capped (Daily) -> quota_exhausted until the 24-hour reset, else midnight UTC', () => {
    expect(classifyX(res(429, usageCapped('Daily'), windowHeaders), NOW)).toMatchObject({
      kind: 'quota_exhausted',
      retryAfterMs: Date.UTC(2026, 10, 23) - NOW,
    });
    const daily = {
      ...windowHeaders,
      'x-app-limit-24hour-remaining': '0',
      'x-app-limit-24hour-reset': String(nowSeconds + 3600),
    };
    expect(classifyX(res(429, usageCapped('Daily'), daily), NOW)).toMatchObject({
      kind: 'quota_exhausted',
      retryAfterMs: 3_600_000,
    });
  });

  it('400 invalid request -> validation; 5xx -> transient', () => {
    const invalid = {
      errors: [{ parameters: { 'media.media_ids': ['x'] }, message: 'Your media IDs are invalid.' }],
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: 'https://api.x.com/2/problems/invalid-request',
    };
    expect(classifyX(res(400, invalid), NOW)).toMatchObject({ kind: 'validation', networkCode: 'invalid-request' });
    expect(
      classifyX(
        res(503, { title: 'Service Unavailable', detail: 'Service Unavailable', type: 'about:blank', status: 503 }),
        NOW,
      ).kind,
    ).toBe('transient');
    expect(classifyX(res(502, '<html>bad gateway</html>'), NOW)).toMatchObject({
      kind: 'transient',
      networkMessage: 'HTTP 502',
    });
  });
});

describe('classifyMediaProcessing', () => {
  it('failed processing -> media_invalid; others are not failures', () => {
    expect(
      classifyMediaProcessing({
        state: 'failed',
        error: { code: 1, name: 'InvalidMedia', message: 'Invalid or Unsupported media' },
      }),
    ).toEqual({
      kind: 'media_invalid',
      networkCode: 'InvalidMedia',
      networkMessage: 'Invalid or Unsupported media',
    });
    expect(classifyMediaProcessing({ state: 'in_progress', check_after_secs: 5 })).toBeUndefined();
    expect(classifyMediaProcessing(undefined)).toBeUndefined();
  });
});
