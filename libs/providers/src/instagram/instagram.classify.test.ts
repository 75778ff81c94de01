import { ProviderError } from '../errors/provider-error.ts';
import { classifyContainerStatus, classifyInstagram } from './instagram.classify.ts';

const NOW = Date.UTC(2026, 10, 22);
const graph = (error: Record<string, unknown>, headers: Record<string, string> = {}, status = 400) => ({
  status,
  headers,
  data: { error: { type: 'OAuthException', ...error } },
});

// Bodies recorded from docs/networks.md §1.3 / §7 (META-IG-ERRORS and independent clients).
describe('classifyInstagram', () => {
  it.each([
    [
      'media not ready (publish before FINISHED)',
      graph({
        message: 'Media ID is not available',
        code: 9007,
        error_subcode: 2207027,
        error_user_msg: 'The media is not ready for publishing, please wait for a moment',
      }),
      'transient',
      '9007/2207027',
    ],
    [
      'daily publishing limit',
      graph({ message: 'Application request limit reached', code: 9, error_subcode: 2207042 }),
      'quota_exhausted',
      '9/2207042',
    ],
    [
      'image too large',
      graph({ message: 'The image size is too large.', code: 36000, error_subcode: 2207004, is_transient: false }),
      'media_invalid',
      '36000/2207004',
    ],
    [
      'aspect ratio',
      graph({ message: 'The aspect ratio is not supported.', code: 36003, error_subcode: 2207009 }),
      'media_invalid',
      '36003/2207009',
    ],
    [
      'media download failed',
      graph({ message: 'Only photo or video can be accepted as media type.', code: 9004, error_subcode: 2207052 }),
      'media_invalid',
      '9004/2207052',
    ],
    ['download timeout', graph({ message: 'Timeout', code: -2, error_subcode: 2207003 }), 'transient', '-2/2207003'],
    [
      'server error',
      graph({ message: 'Instagram server error', code: -1, error_subcode: 2207001 }),
      'transient',
      '-1/2207001',
    ],
    [
      'IG BUC throttle',
      graph({ message: '(#80002) There have been too many calls to this Instagram account.', code: 80002 }),
      'rate_limited',
      '80002',
    ],
    [
      'expired token',
      graph({ message: 'Error validating access token: Session has expired', code: 190, error_subcode: 463 }),
      'auth_expired',
      '190/463',
    ],
    [
      'insufficient permission',
      graph({ message: '(#10) Application does not have permission for this action', code: 10 }),
      'permission_missing',
      '10',
    ],
    [
      'deprecated metric',
      graph({ message: '(#100) metric[0] must be one of the following values: views, reach', code: 100 }),
      'validation',
      '100',
    ],
  ])('%s', (_name, response, kind, networkCode) => {
    expect(classifyInstagram(response, NOW)).toMatchObject({ kind, networkCode });
  });

  it('takes the wait from the instagram BUC entry', () => {
    const response = graph(
      { message: '(#80002) too many calls', code: 80002 },
      {
        'x-business-use-case-usage':
          '{"17841400000000000":[{"type":"instagram","call_count":100,"estimated_time_to_regain_access":2}]}',
      },
    );
    expect(classifyInstagram(response, NOW).retryAfterMs).toBe(120_000);
  });
});

describe('classifyContainerStatus', () => {
  // The status text as Instagram words it (recorded in gitroomhq/postiz-app#1992).
  const failed = (subcode: number) => `Error: Media upload has failed with error code ${subcode}`;

  it('an image Instagram could not fetch (2207052): permanent media_invalid, explained, Instagram quoted', () => {
    const classification = classifyContainerStatus('ERROR', failed(2207052))!;
    expect(classification).toEqual({
      kind: 'media_invalid',
      networkCode: 'ERROR/2207052',
      networkMessage:
        'Instagram could not fetch the media from its URL: the URL must serve the file publicly (no sign-in, no private address) until Instagram has processed it. Publish again once it does. (Instagram: "Error: Media upload has failed with error code 2207052")',
      retryAfterMs: undefined,
    });
    const error = new ProviderError({ network: 'instagram', ...classification });
    expect({ retryable: error.retryable, uncertain: error.uncertain }).toEqual({ retryable: false, uncertain: false });
  });

  it('explains the other media subcodes a container can fail with, and keeps an unknown one as Instagram said it', () => {
    expect(classifyContainerStatus('ERROR', failed(2207026))).toMatchObject({
      kind: 'media_invalid',
      networkCode: 'ERROR/2207026',
      networkMessage: expect.stringMatching(/^Instagram does not support this video's format: use MP4 or MOV/),
    });
    expect(classifyContainerStatus('ERROR', failed(2207028))?.networkMessage).toMatch(
      /^Instagram refused the carousel/,
    );
    expect(classifyContainerStatus('ERROR', failed(2207020))).toMatchObject({
      kind: 'media_invalid',
      networkMessage: failed(2207020),
    });
  });

  it('reads the subcode at the end of the ERROR status text', () => {
    expect(classifyContainerStatus('ERROR', 'Error: The video format is not supported. 2207026')).toMatchObject({
      kind: 'media_invalid',
      networkCode: 'ERROR/2207026',
    });
    expect(classifyContainerStatus('ERROR', 'Error: Timeout downloading media 2207003')).toMatchObject({
      kind: 'transient',
    });
    expect(classifyContainerStatus('ERROR', undefined)).toMatchObject({ kind: 'media_invalid', networkCode: 'ERROR' });
  });
  it('treats EXPIRED as transient (recreate) and in-progress states as no failure', () => {
    expect(classifyContainerStatus('EXPIRED', undefined)?.kind).toBe('transient');
    expect(classifyContainerStatus('IN_PROGRESS', undefined)).toBeUndefined();
    expect(classifyContainerStatus('FINISHED', undefined)).toBeUndefined();
  });
});
