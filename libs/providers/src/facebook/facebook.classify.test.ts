import { classifyFacebook, classifyVideoStatus } from './facebook.classify.ts';

const NOW = Date.UTC(2026, 10, 22, 1, 0, 0);
const graph = (status: number, error: Record<string, unknown>, headers: Record<string, string> = {}) => ({
  status,
  headers,
  data: { error: { type: 'OAuthException', fbtrace_id: 'AmFGcW_3hwDB7qFbl_QdebZ', ...error } },
});

// Bodies recorded from docs/networks.md §2.3 (META-ERR, META-RATE) and POSTIZ's production mapping.
describe('classifyFacebook', () => {
  it.each([
    [
      'expired session',
      graph(400, {
        message: 'Error validating access token: Session has expired on Friday, 20-Nov-26 ...',
        code: 190,
        error_subcode: 463,
      }),
      'auth_expired',
      '190/463',
    ],
    [
      'app removed',
      graph(400, {
        message: 'Error validating access token: The user has not authorized application 123.',
        code: 190,
        error_subcode: 458,
      }),
      'auth_revoked',
      '190/458',
    ],
    [
      'password changed',
      graph(400, {
        message:
          'Error validating access token: The session has been invalidated because the user changed their password.',
        code: 190,
        error_subcode: 460,
      }),
      'auth_revoked',
      '190/460',
    ],
    [
      'unparsable token',
      graph(400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 }),
      'auth_revoked',
      '190',
    ],
    [
      'missing permission',
      graph(403, {
        message: '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts',
        code: 200,
      }),
      'permission_missing',
      '200',
    ],
    [
      'permission (#10)',
      graph(400, { message: '(#10) Application does not have permission for this action', code: 10 }),
      'permission_missing',
      '10',
    ],
    [
      'page publishing authorization',
      graph(400, { message: 'Page publishing authorization required', code: 368, error_subcode: 1404078 }),
      'permission_missing',
      '368/1404078',
    ],
    ['duplicate status', graph(400, { message: '(#506) Duplicate status message', code: 506 }), 'duplicate', '506'],
    [
      'photos already posted',
      graph(400, { message: 'Invalid parameter', code: 100, error_subcode: 1366051 }),
      'duplicate',
      '100/1366051',
    ],
    [
      'photo too large',
      graph(400, { message: 'Invalid parameter', code: 100, error_subcode: 1366046 }),
      'media_invalid',
      '100/1366046',
    ],
    [
      'service unavailable',
      graph(500, {
        message: 'An unexpected error has occurred. Please retry your request later.',
        code: 2,
        is_transient: true,
      }),
      'transient',
      '2',
    ],
    ['unknown API error', graph(500, { message: 'An unknown error has occurred.', code: 1 }), 'transient', '1'],
    [
      'posting too fast',
      graph(400, { message: 'You are posting too fast', code: 368, error_subcode: 1390008 }),
      'rate_limited',
      '368/1390008',
    ],
    ['policy block', graph(400, { message: 'You are temporarily blocked', code: 368 }), 'quota_exhausted', '368'],
    ['bad parameter', graph(400, { message: '(#100) Invalid parameter', code: 100 }), 'validation', '100'],
  ])('%s', (_name, response, kind, networkCode) => {
    expect(classifyFacebook(response, NOW)).toMatchObject({ kind, networkCode });
  });

  it('takes the retry time from x-business-use-case-usage (minutes)', () => {
    const response = graph(
      400,
      {
        message: '(#80001) There have been too many calls to this Page account. Wait a bit and try again.',
        code: 80001,
      },
      {
        'x-business-use-case-usage':
          '{"546349135390552":[{"type":"pages","call_count":100,"total_cputime":23,"total_time":23,"estimated_time_to_regain_access":7}]}',
      },
    );
    expect(classifyFacebook(response, NOW)).toEqual({
      kind: 'rate_limited',
      networkCode: '80001',
      networkMessage: expect.stringContaining('#80001'),
      retryAfterMs: 420_000,
    });
  });

  it('rate limited without a usage header falls back to Retry-After, else leaves the time open', () => {
    expect(
      classifyFacebook(
        graph(400, { message: '(#4) Application request limit reached', code: 4 }, { 'retry-after': '30' }),
        NOW,
      ).retryAfterMs,
    ).toBe(30_000);
    expect(
      classifyFacebook(
        graph(400, { message: '(#17) User request limit reached', code: 17 }, { 'x-app-usage': '{"call_count":100}' }),
        NOW,
      ),
    ).toMatchObject({ kind: 'rate_limited', retryAfterMs: undefined });
  });

  it('keeps the user-facing message when Graph gives one', () => {
    expect(
      classifyFacebook(
        graph(400, {
          message: 'Invalid parameter',
          code: 100,
          error_subcode: 2069019,
          error_user_msg: 'The file could not be downloaded.',
        }),
        NOW,
      ).networkMessage,
    ).toBe('The file could not be downloaded.');
  });

  it('treats a non-Graph 5xx (proxy page) as transient', () => {
    expect(classifyFacebook({ status: 502, headers: {}, data: '<html>Bad Gateway</html>' }, NOW)).toMatchObject({
      kind: 'transient',
      networkMessage: 'HTTP 502',
    });
  });

  it('reads failed video processing as media_invalid', () => {
    expect(
      classifyVideoStatus({
        video_status: 'error',
        processing_phase: { status: 'error', errors: [{ code: 1363008, message: 'Video format not supported' }] },
      }),
    ).toEqual({
      kind: 'media_invalid',
      networkCode: '1363008',
      networkMessage: 'Video format not supported',
    });
    expect(classifyVideoStatus({ video_status: 'processing' })).toBeUndefined();
  });
});
