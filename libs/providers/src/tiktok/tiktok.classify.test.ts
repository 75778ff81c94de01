import { classifyPublishFailure, classifyTikTok } from './tiktok.classify.ts';
import { parseStatus } from './tiktok.publish.ts';

const NOW = Date.UTC(2026, 10, 22);
const envelope = (status: number, code: string, message: string, headers: Record<string, string> = {}) => ({
  status,
  headers,
  data: { data: {}, error: { code, message, log_id: '20240829190020EBE0D84CCEA6DE000CB6' } },
});

// Bodies from docs/networks.md §5.3 (TT-ERR, TT-DIRECT, POSTIZ's production mapping).
describe('classifyTikTok', () => {
  it.each([
    [
      'invalid token',
      envelope(401, 'access_token_invalid', 'The access token is invalid or not found in the request.'),
      'auth_expired',
    ],
    [
      'scope not granted',
      envelope(
        401,
        'scope_not_authorized',
        'The user did not authorize the scope required for completing this request.',
      ),
      'permission_missing',
    ],
    [
      'scope not approved',
      envelope(401, 'scope_permission_missed', 'The client does not have permission for this scope.'),
      'permission_missing',
    ],
    ['bad params', envelope(400, 'invalid_params', 'The request parameters are invalid.'), 'validation'],
    ['bad upload', envelope(400, 'invalid_file_upload', 'The file does not meet the specs.'), 'media_invalid'],
    [
      'daily cap',
      envelope(403, 'spam_risk_too_many_posts', 'The daily post cap for this user was reached.'),
      'quota_exhausted',
    ],
    [
      'active user cap',
      envelope(403, 'reached_active_user_cap', 'Daily active publisher quota reached.'),
      'quota_exhausted',
    ],
    ['spam / duplicate', envelope(403, 'spam_risk_text', 'Spam risk.'), 'duplicate'],
    [
      'banned',
      envelope(403, 'spam_risk_user_banned_from_posting', 'The user is banned from posting.'),
      'permission_missing',
    ],
    [
      'unaudited',
      envelope(
        403,
        'unaudited_client_can_only_post_to_private_accounts',
        'Unaudited clients can only post to private accounts.',
      ),
      'permission_missing',
    ],
    [
      'unverified url',
      envelope(403, 'url_ownership_unverified', 'The URL prefix is not verified.'),
      'permission_missing',
    ],
    [
      'privacy mismatch',
      envelope(400, 'privacy_level_option_mismatch', 'privacy_level does not match creator_info.'),
      'validation',
    ],
    ['internal', envelope(500, 'internal_error', 'Something went wrong.'), 'transient'],
    ['unknown spam code', envelope(403, 'spam_risk_something_new', 'Spam.'), 'quota_exhausted'],
  ])('%s', (_name, response, kind) => {
    expect(classifyTikTok(response, NOW)).toMatchObject({
      kind,
      networkCode: response.data.error.code,
      networkMessage: response.data.error.message,
    });
  });

  it('rate limited: Retry-After when present, else the documented 1-minute window', () => {
    expect(classifyTikTok(envelope(429, 'rate_limit_exceeded', 'Rate limited.'), NOW).retryAfterMs).toBe(60_000);
    expect(
      classifyTikTok(envelope(429, 'rate_limit_exceeded', 'Rate limited.', { 'retry-after': '5' }), NOW).retryAfterMs,
    ).toBe(5_000);
  });

  it('daily caps defer the account a whole 24-hour window instead of retrying at once', () => {
    expect(
      classifyTikTok(envelope(403, 'spam_risk_too_many_posts', 'The daily post cap for this user was reached.'), NOW),
    ).toMatchObject({ kind: 'quota_exhausted', retryAfterMs: 86_400_000 });
    expect(
      classifyTikTok(envelope(403, 'reached_active_user_cap', 'Daily active publisher quota reached.'), NOW)
        .retryAfterMs,
    ).toBe(86_400_000);
    expect(classifyPublishFailure('spam_risk_too_many_posts')).toMatchObject({
      kind: 'quota_exhausted',
      retryAfterMs: 86_400_000,
    });
    expect(classifyTikTok(envelope(403, 'spam_risk_text', 'Spam risk.'), NOW).retryAfterMs).toBeUndefined();
  });

  it('OAuth errors and raw-text bodies', () => {
    expect(
      classifyTikTok(
        {
          status: 400,
          headers: {},
          data: { error: 'invalid_grant', error_description: 'Refresh token is invalid or expired.', log_id: 'x' },
        },
        NOW,
      ),
    ).toMatchObject({ kind: 'auth_revoked', networkCode: 'invalid_grant' });
    expect(
      classifyTikTok(
        {
          status: 401,
          headers: {},
          data: '{"data":{},"error":{"code":"access_token_invalid","message":"m","log_id":"l"}}',
        },
        NOW,
      ),
    ).toMatchObject({ kind: 'auth_expired', networkCode: 'access_token_invalid' });
    expect(classifyTikTok({ status: 503, headers: {}, data: '<html>' }, NOW)).toMatchObject({
      kind: 'transient',
      networkCode: '503',
    });
  });
});

describe('classifyPublishFailure', () => {
  it.each([
    ['video_pull_failed', 'media_invalid'],
    ['photo_pull_failed', 'media_invalid'],
    ['file_format_check_failed', 'media_invalid'],
    ['duration_check_failed', 'media_invalid'],
    ['auth_removed', 'auth_revoked'],
    ['internal', 'transient'],
    ['spam_risk_too_many_posts', 'quota_exhausted'],
    ['publish_cancelled', 'validation'],
  ])('%s -> %s', (reason, kind) => {
    expect(classifyPublishFailure(reason)).toMatchObject({ kind, networkCode: reason });
  });
});

describe('parseStatus', () => {
  it('keeps int64 post ids exact (JSON.parse would round them)', () => {
    const raw =
      '{"data":{"status":"PUBLISH_COMPLETE","fail_reason":"","publicaly_available_post_id":[7290000000000000123],"uploaded_bytes":0,"downloaded_bytes":10},"error":{"code":"ok","message":"","log_id":"x"}}';
    expect(parseStatus(raw)).toEqual({
      status: 'PUBLISH_COMPLETE',
      failReason: '',
      postIds: ['7290000000000000123'],
      errorCode: 'ok',
    });
    expect(
      String(
        (JSON.parse(raw) as { data: { publicaly_available_post_id: number[] } }).data.publicaly_available_post_id[0],
      ),
    ).not.toBe('7290000000000000123');
  });
});
