import { createHash, randomBytes } from 'node:crypto';
import { type Providers } from '../src/index.ts';
import { Readable } from 'node:stream';
import { JPEG, MP4, startMediaServer, type MediaServer } from './support/media-server.ts';
import { consent, failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

const app = {
  clientId: 'x-client',
  clientSecret: 'x-secret',
  redirectUri: 'https://app.example.com/oauth/x/callback',
  scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
};

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

describe('X adapter against the sandbox', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;
  let accessToken: string;
  let refreshToken: string;

  beforeAll(async () => {
    sandbox = await startSandbox();
    media = await startMediaServer();
    providers = testProviders(sandbox.baseUrl);
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });

  async function connect() {
    const { verifier, challenge } = pkce();
    const { url } = providers.x.oauth.authorizeUrl({ app, state: 'state-x', codeChallenge: challenge });
    const { code, state } = await consent(url);
    expect(state).toBe('state-x');
    return providers.x.oauth.exchangeCode({ app, code, codeVerifier: verifier });
  }

  beforeEach(async () => {
    await sandbox.reset();
    const tokens = await connect();
    accessToken = tokens.accessToken;
    refreshToken = tokens.refreshToken!;
  });

  const credentials = () => ({ accessToken });

  it('OAuth 2.0 with PKCE: a challenge is required, a wrong verifier fails, tokens last 2 h', async () => {
    expect(providers.x.oauth.pkce).toBe('required');
    expect(() => providers.x.oauth.authorizeUrl({ app, state: 's' })).toThrow(/PKCE/);
    const { challenge } = pkce();
    const { code } = await consent(providers.x.oauth.authorizeUrl({ app, state: 's', codeChallenge: challenge }).url);
    const wrong = await failure(() => providers.x.oauth.exchangeCode({ app, code, codeVerifier: 'not-the-verifier' }));
    expect(wrong).toMatchObject({ kind: 'auth_revoked', networkCode: 'invalid_request', status: 400 });
    const tokens = await connect();
    expect(tokens.expiresAt!.getTime() - Date.now()).toBeGreaterThan(7100_000);
    expect(tokens.scopes).toContain('offline.access');
  });

  it('refresh rotates: the new pair works, the old refresh token is single-use and replaying it revokes the grant', async () => {
    const renewed = await providers.x.oauth.refresh({ app, refreshToken });
    expect(renewed.refreshToken).toBeDefined();
    expect(renewed.refreshToken).not.toBe(refreshToken);
    await expect(providers.x.profile.fetch({ accessToken: renewed.accessToken })).resolves.toMatchObject({
      handle: expect.any(String),
    });
    const replay = await failure(() => providers.x.oauth.refresh({ app, refreshToken }));
    expect(replay).toMatchObject({ kind: 'auth_revoked', networkMessage: 'Value passed for the token was invalid.' });
    expect((await failure(() => providers.x.oauth.refresh({ app, refreshToken: renewed.refreshToken! }))).kind).toBe(
      'auth_revoked',
    );
  });

  it('a token without the scopes is refused as X does (bare 403 Forbidden) and classified permission_missing', async () => {
    const readOnly = { ...app, scopes: ['tweet.read', 'users.read'] };
    const { verifier, challenge } = pkce();
    const { code } = await consent(
      providers.x.oauth.authorizeUrl({ app: readOnly, state: 'r', codeChallenge: challenge }).url,
    );
    const token = (await providers.x.oauth.exchangeCode({ app: readOnly, code, codeVerifier: verifier })).accessToken;
    await expect(providers.x.profile.fetch({ accessToken: token })).resolves.toMatchObject({
      handle: expect.any(String),
    });
    expect(
      await failure(() =>
        providers.x.publish.post({ credentials: { accessToken: token }, text: 'no tweet.write', media: [] }),
      ),
    ).toMatchObject({ kind: 'permission_missing', status: 403 });
    expect(
      await failure(() =>
        providers.x.publish.post({
          credentials: { accessToken: token },
          text: 'x',
          media: [{ url: media.url('/image.jpg'), kind: 'image' }],
        }),
      ),
    ).toMatchObject({ kind: 'permission_missing', status: 403 });
  });

  it('revoke invalidates the token', async () => {
    await providers.x.oauth.revoke({ app, token: accessToken });
    expect((await failure(() => providers.x.profile.fetch({ accessToken }))).kind).toBe('auth_expired');
  });

  it('profile: users/me', async () => {
    const profile = await providers.x.profile.fetch({ accessToken });
    expect(profile).toMatchObject({
      platformAccountId: expect.stringMatching(/^\d+$/),
      handle: expect.stringMatching(/^sandbox_/),
      extras: { username: profile.handle },
    });
  });

  it('a Premium account (subscription_type at connect) may post long text; a standard one is held to 280 with bare domains counted as URLs', async () => {
    const premium = await providers.x.profile.fetch({ accessToken: 'premium_byok_long' });
    expect(premium.extras.subscription_type).toBe('Premium');
    const long = await providers.x.publish.post({
      credentials: { accessToken: 'premium_byok_long', extras: premium.extras },
      text: 'c'.repeat(1000),
      media: [],
    });
    expect(long.platformPostId).toMatch(/^\d{19}$/);
    const standard = await providers.x.profile.fetch({ accessToken });
    expect(standard.extras.subscription_type).toBe('None');
    const domains = await failure(() =>
      providers.x.publish.post({
        credentials: { accessToken, extras: standard.extras },
        text: `${'a'.repeat(250)} a.co b.co c.co`,
        media: [],
      }),
    );
    expect(domains).toMatchObject({ kind: 'validation', networkCode: 'text_length' });
    expect(await sandbox.posts('x')).toHaveLength(1);
  });

  it('publishes text, up to 4 images and a video (chunked upload, processing polled) with x.com URLs', async () => {
    const text = await providers.x.publish.post({ credentials: credentials(), text: `hello ${Date.now()}`, media: [] });
    expect(text.platformPostId).toMatch(/^\d{19}$/);
    expect(text.url).toMatch(new RegExp(`^https://x\\.com/sandbox_\\w+/status/${text.platformPostId}$`));
    const images = await providers.x.publish.post({
      credentials: { accessToken, extras: { username: 'known_handle' } },
      text: 'four',
      media: [media.url('/image.jpg'), media.url('/image.png'), media.url('/image.jpg'), media.url('/image.png')].map(
        (url) => ({ url, kind: 'image' as const }),
      ),
    });
    expect(images.url).toBe(`https://x.com/known_handle/status/${images.platformPostId}`);
    await providers.x.publish.post({
      credentials: credentials(),
      text: 'video',
      media: [{ url: media.url('/video.mp4'), kind: 'video' }],
    });
    const posts = await sandbox.posts('x');
    expect(posts.map((post) => post.media.length)).toEqual([0, 4, 1]);
    expect(posts[2]!.media[0]!.kind).toBe('video');
  });

  it('checks the weighted length and media counts before any call', async () => {
    expect(
      (await failure(() => providers.x.publish.post({ credentials: credentials(), text: '日'.repeat(141), media: [] })))
        .networkCode,
    ).toBe('text_length');
    const five = Array.from({ length: 5 }, () => ({ url: media.url('/image.jpg'), kind: 'image' as const }));
    expect(
      (await failure(() => providers.x.publish.post({ credentials: credentials(), text: 'x', media: five })))
        .networkCode,
    ).toBe('media_count');
    expect(await sandbox.posts('x')).toHaveLength(0);
  });

  it('a broken media URL fails as media_invalid; a non-video file fails processing as media_invalid', async () => {
    const broken = await failure(() =>
      providers.x.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/missing.jpg'), kind: 'image' }],
      }),
    );
    expect(broken).toMatchObject({ kind: 'media_invalid', network: 'x', networkCode: 'media_download_failed' });
    // Bytes that are not a video under a video type: X's processing fails it.
    const jpeg = JPEG;
    const notVideo = await failure(() =>
      providers.x.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [
          {
            url: media.url('/image.jpg'),
            kind: 'video',
            source: {
              contentType: 'video/mp4',
              sizeBytes: jpeg.length,
              open: async (span) =>
                Readable.from([span === undefined ? jpeg : jpeg.subarray(span.start, span.end + 1)]),
            },
          },
        ],
      }),
    );
    expect(notVideo).toMatchObject({ kind: 'media_invalid', networkCode: 'InvalidMedia' });
  });

  it('takes media_type and media_category from the file type: a host serving application/octet-stream still works', async () => {
    const stored = (bytes: Buffer, contentType: string, kind: 'image' | 'video') => ({
      url: 'https://api.example.com/media/med_x',
      kind,
      source: {
        contentType,
        sizeBytes: bytes.length,
        open: async (span?: { start: number; end: number }) =>
          Readable.from([span === undefined ? bytes : bytes.subarray(span.start, span.end + 1)]),
      },
    });
    const clip = await providers.x.publish.post({
      credentials: credentials(),
      text: 'clip',
      media: [stored(MP4, 'video/mp4', 'video')],
    });
    expect(clip.platformPostId).toBeDefined();
    const octet = await providers.x.publish.post({
      credentials: credentials(),
      text: 'octet',
      media: [{ url: media.url('/octet.png'), kind: 'image' }],
    });
    expect(octet.platformPostId).toBeDefined();
  });

  describe('faults', () => {
    const publish = () =>
      providers.x.publish.post({ credentials: credentials(), text: `fault ${Math.random()}`, media: [] });

    it('quota_exhausted (429 usage-capped) -> quota_exhausted deferred to the cap reset, not the 15-minute window', async () => {
      await sandbox.fault('x', 'quota_exhausted');
      const error = await failure(publish);
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      expect(error).toMatchObject({
        kind: 'quota_exhausted',
        retryable: true,
        status: 429,
        networkCode: 'usage-capped',
      });
      expect(Math.abs(Date.now() + error.retryAfterMs! - midnight.getTime())).toBeLessThan(60_000);
    });

    it('rate_limit -> rate_limited with the retry time from x-rate-limit-reset', async () => {
      await sandbox.fault('x', 'rate_limit', 1, 90);
      const error = await failure(publish);
      expect(error).toMatchObject({ kind: 'rate_limited', status: 429 });
      expect(error.retryAfterMs).toBeGreaterThan(85_000);
      expect(error.retryAfterMs).toBeLessThanOrEqual(91_000);
    });
    it('server_error -> transient', async () => {
      await sandbox.fault('x', 'server_error');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', status: 503 });
    });
    it('timeout -> transient', async () => {
      await sandbox.fault('x', 'timeout');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', networkCode: 'timeout' });
    });
    it('token_expired -> auth_expired', async () => {
      await sandbox.fault('x', 'token_expired');
      expect(await failure(publish)).toMatchObject({ kind: 'auth_expired', status: 401 });
    });
    it('token_revoked -> 401 on the call (X does not tell), then auth_revoked on refresh', async () => {
      await sandbox.fault('x', 'token_revoked');
      expect((await failure(publish)).kind).toBe('auth_expired');
      expect(await failure(() => providers.x.oauth.refresh({ app, refreshToken }))).toMatchObject({
        kind: 'auth_revoked',
        networkCode: 'invalid_request',
      });
    });
    it('token_revoked on the token endpoint -> auth_revoked', async () => {
      await sandbox.fault('x', 'token_revoked');
      expect((await failure(() => providers.x.oauth.refresh({ app, refreshToken }))).kind).toBe('auth_revoked');
    });
    it('duplicate -> duplicate, and a real duplicate text is refused too', async () => {
      await sandbox.fault('x', 'duplicate');
      expect(await failure(publish)).toMatchObject({ kind: 'duplicate', status: 403 });
      await providers.x.publish.post({ credentials: credentials(), text: 'same', media: [] });
      expect(
        (await failure(() => providers.x.publish.post({ credentials: credentials(), text: 'same', media: [] }))).kind,
      ).toBe('duplicate');
    });
  });
});
