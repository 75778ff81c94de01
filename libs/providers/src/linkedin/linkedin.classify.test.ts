import { classifyAssetStatus, classifyLinkedIn } from './linkedin.classify.ts';
import { escapeLittleText, toLittleText } from './linkedin.text.ts';

const NOW = Date.UTC(2026, 10, 22);
const res = (status: number, data: unknown, headers: Record<string, string> = {}) => ({ status, headers, data });

// Bodies from docs/networks.md §4.3 (LI-ERR and recorded responses).
describe('classifyLinkedIn', () => {
  it.each([
    [
      'expired token',
      res(401, {
        status: 401,
        serviceErrorCode: 65600,
        code: 'EXPIRED_ACCESS_TOKEN',
        message: 'The token used in the request has expired',
      }),
      'auth_expired',
      'EXPIRED_ACCESS_TOKEN',
    ],
    [
      'revoked token',
      res(401, {
        status: 401,
        serviceErrorCode: 65601,
        code: 'REVOKED_ACCESS_TOKEN',
        message: 'The token used in the request has been revoked by the user',
      }),
      'auth_revoked',
      'REVOKED_ACCESS_TOKEN',
    ],
    [
      'invalid token',
      res(401, { status: 401, serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN', message: 'Invalid access token' }),
      'auth_revoked',
      'INVALID_ACCESS_TOKEN',
    ],
    [
      'empty token (old shape)',
      res(401, { message: 'Empty oauth2_access_token', serviceErrorCode: 401, status: 401 }),
      'auth_expired',
      '401',
    ],
    [
      'access denied',
      res(403, {
        status: 403,
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
        message: 'Not enough permissions to access: POST /rest/posts',
      }),
      'permission_missing',
      'ACCESS_DENIED',
    ],
    [
      'missing field',
      res(422, {
        status: 422,
        message: 'ERROR :: /author :: field is required but not found and has no default value',
      }),
      'validation',
      '422',
    ],
    [
      'throttled (daily limit)',
      res(429, {
        status: 429,
        serviceErrorCode: 101,
        code: 'TOO_MANY_REQUESTS',
        message: 'Resource level throttle limit for calls to this resource is reached.',
      }),
      'quota_exhausted',
      'TOO_MANY_REQUESTS',
    ],
    ['server error', res(500, { message: 'Internal Server Error', status: 500 }), 'transient', '500'],
    [
      'sunset version',
      res(426, { status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 202301 is not active' }),
      'validation',
      'NONEXISTENT_VERSION',
    ],
    [
      'refresh expired or revoked',
      res(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }),
      'auth_revoked',
      'invalid_grant',
    ],
    [
      'bad client',
      res(401, { error: 'invalid_client', error_description: 'Client authentication failed.' }),
      'permission_missing',
      'invalid_client',
    ],
  ])('%s', (_name, response, kind, networkCode) => {
    expect(classifyLinkedIn(response, NOW)).toMatchObject({ kind, networkCode });
  });

  it('422 DUPLICATE_POST (from Arisamiga/Linkedin-RSS#5) -> duplicate with LinkedIn’s message', () => {
    const body = {
      errorDetailType: 'com.linkedin.common.error.BadRequest',
      message:
        'com.linkedin.content.common.exception.BadRequestResponseException: Content is a duplicate of urn:li:share:7141138937766391808',
      errorDetails: { inputErrors: [{ description: 'Duplicate post is detected', input: {}, code: 'DUPLICATE_POST' }] },
      status: 422,
    };
    expect(classifyLinkedIn(res(422, body), NOW)).toEqual({
      kind: 'duplicate',
      networkCode: 'DUPLICATE_POST',
      networkMessage: body.message,
    });
  });

  it('429 uses Retry-After when present (LinkedIn documents none)', () => {
    expect(classifyLinkedIn(res(429, { status: 429 }, { 'retry-after': '120' }), NOW).retryAfterMs).toBe(120_000);
  });

  it('429 without a header defers to midnight UTC, when the daily limits reset', () => {
    const evening = Date.UTC(2026, 10, 22, 18, 30);
    const throttled = res(429, {
      status: 429,
      serviceErrorCode: 101,
      code: 'TOO_MANY_REQUESTS',
      message: 'Resource level throttle limit for calls to this resource is reached.',
    });
    expect(classifyLinkedIn(throttled, evening)).toMatchObject({
      kind: 'quota_exhausted',
      retryAfterMs: 5.5 * 3_600_000,
    });
  });

  it('a sunset LinkedIn-Version is an operator error that names LINKEDIN_VERSION and is never retried', () => {
    const sunset = classifyLinkedIn(
      res(426, { status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 202501 is not active' }),
      NOW,
    );
    expect(sunset).toMatchObject({ kind: 'validation', networkCode: 'NONEXISTENT_VERSION' });
    expect(sunset.networkMessage).toMatch(/^Requested version 202501 is not active\. .*LINKEDIN_VERSION/);
  });

  it('PROCESSING_FAILED assets are media_invalid', () => {
    expect(classifyAssetStatus('PROCESSING_FAILED', 'Unsupported video format')).toEqual({
      kind: 'media_invalid',
      networkCode: 'PROCESSING_FAILED',
      networkMessage: 'Unsupported video format',
    });
    expect(classifyAssetStatus('AVAILABLE', undefined)).toBeUndefined();
  });
});

describe('escapeLittleText', () => {
  it('escapes every reserved character', () => {
    expect(escapeLittleText('a (b) [c] #d @e *f_ ~g <h> {i} |j \\k')).toBe(
      'a \\(b\\) \\[c\\] \\#d \\@e \\*f\\_ \\~g \\<h\\> \\{i\\} \\|j \\\\k',
    );
  });
});

describe('toLittleText', () => {
  it('keeps hashtags and mentions as LinkedIn elements and escapes every other reserved character', () => {
    expect(toLittleText('Launch day #launch #Été2026 (v2)')).toBe('Launch day #launch #Été2026 \\(v2\\)');
    expect(toLittleText('Thanks @[Devtestco](urn:li:organization:2414183) and @you_know')).toBe(
      'Thanks @[Devtestco](urn:li:organization:2414183) and \\@you\\_know',
    );
    expect(toLittleText('{hashtag|\\#|News} today')).toBe('{hashtag|\\#|News} today');
  });

  it('a # inside a word or URL, or with nothing after it, stays plain text', () => {
    expect(toLittleText('C# and https://a.example/#top and # alone')).toBe(
      'C\\# and https://a.example/\\#top and \\# alone',
    );
    expect(toLittleText('#my_tag')).toBe('#my\\_tag');
  });
});
