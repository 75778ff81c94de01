import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { type MediaInput, type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { consent, failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

const app = {
  clientId: 'tt-client-key',
  clientSecret: 'tt-secret',
  redirectUri: 'https://app.example.com/oauth/tiktok/callback',
  scopes: ['user.info.basic', 'user.info.profile', 'video.publish', 'video.list'],
};

describe('TikTok adapter against the sandbox', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;
  let accessToken: string;
  let refreshToken: string;

  beforeAll(async () => {
    media = await startMediaServer();
    // Like a TikTok app that verified the media server's origin: only URLs there may be pulled.
    const verified = new URL(media.url('/')).origin;
    sandbox = await startSandbox({ tiktokVerifiedPrefixes: [verified] });
    providers = testProviders(sandbox.baseUrl, { TIKTOK_VERIFIED_URL_PREFIXES: verified });
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });
  beforeEach(async () => {
    await sandbox.reset();
    const { code } = await consent(providers.tiktok.oauth.authorizeUrl({ app, state: 'tt' }).url);
    const tokens = await providers.tiktok.oauth.exchangeCode({ app, code });
    accessToken = tokens.accessToken;
    refreshToken = tokens.refreshToken!;
  });

  const credentials = () => ({ accessToken });
  const video = () => ({ url: media.url('/video.mp4'), kind: 'video' as const });
  const photo = () => ({ url: media.url('/image.jpg'), kind: 'image' as const });

  it('OAuth: optional PKCE (checked when used), 2 h tokens with open_id, rotating refresh tokens, revoke', async () => {
    expect(providers.tiktok.oauth.pkce).toBe('optional');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('hex');
    const { url } = providers.tiktok.oauth.authorizeUrl({ app, state: 'p', codeChallenge: challenge });
    expect(url).toContain('/tiktok/v2/auth/authorize/?client_key=tt-client-key');
    const { code } = await consent(url);
    const tokens = await providers.tiktok.oauth.exchangeCode({ app, code, codeVerifier: verifier });
    expect(tokens.extras?.open_id).toBeDefined();
    expect(tokens.expiresAt!.getTime() - Date.now()).toBeLessThanOrEqual(7200_000);
    const renewed = await providers.tiktok.oauth.refresh({ app, refreshToken });
    expect(renewed.refreshToken).not.toBe(refreshToken);
    expect(await failure(() => providers.tiktok.oauth.refresh({ app, refreshToken }))).toMatchObject({
      kind: 'auth_revoked',
      networkCode: 'invalid_grant',
    });
    await providers.tiktok.oauth.revoke({ app, token: renewed.accessToken });
    expect(await failure(() => providers.tiktok.profile.fetch({ accessToken: renewed.accessToken }))).toMatchObject({
      kind: 'auth_expired',
      networkCode: 'access_token_invalid',
    });
  });

  it('profile: user info', async () => {
    const profile = await providers.tiktok.profile.fetch({ accessToken });
    expect(profile).toMatchObject({
      platformAccountId: expect.any(String),
      handle: expect.stringMatching(/^sandbox\./),
      extras: { open_id: profile.platformAccountId },
    });
  });

  it('scopes per field and per call: username needs user.info.profile; publishing needs video.publish', async () => {
    const basicApp = { ...app, scopes: ['user.info.basic'] };
    const { code } = await consent(providers.tiktok.oauth.authorizeUrl({ app: basicApp, state: 'b' }).url);
    const basic = (await providers.tiktok.oauth.exchangeCode({ app: basicApp, code })).accessToken;
    // TikTok refuses the whole call for username; the adapter falls back to the basic fields.
    const profile = await providers.tiktok.profile.fetch({ accessToken: basic });
    expect(profile.handle).toBe(profile.platformAccountId);
    expect(profile.extras.username).toBeUndefined();
    const refused = await failure(() =>
      providers.tiktok.publish.post({
        credentials: { accessToken: basic },
        text: 'x',
        media: [video()],
        options: { privacy_level: 'SELF_ONLY' },
      }),
    );
    expect(refused).toMatchObject({ kind: 'permission_missing', networkCode: 'scope_not_authorized', status: 401 });
  });

  it('creator_info: kept with the account at connect, checked again at publish; switches the creator turned off are sent off', async () => {
    const token = 'private_creator_byok';
    const profile = await providers.tiktok.profile.fetch({ accessToken: token });
    expect(profile.extras).toMatchObject({
      tt_privacy_level_options: 'FOLLOWER_OF_CREATOR,SELF_ONLY',
      tt_comment_disabled: 'true',
      tt_max_video_post_duration_sec: '60',
    });
    const refused = await failure(() =>
      providers.tiktok.publish.post({
        credentials: { accessToken: token },
        text: 'x',
        media: [video()],
        options: { privacy_level: 'PUBLIC_TO_EVERYONE', disable_comment: false },
      }),
    );
    expect(refused).toMatchObject({
      kind: 'validation',
      networkCode: 'privacy_level_option_mismatch,comment_disabled',
    });
    await providers.tiktok.publish.post({
      credentials: { accessToken: token },
      text: 'ok',
      media: [video()],
      options: { privacy_level: 'FOLLOWER_OF_CREATOR' },
    });
    const [post] = await sandbox.posts('tiktok');
    expect(post!.options).toMatchObject({
      privacy_level: 'FOLLOWER_OF_CREATOR',
      disable_comment: true,
      disable_duet: true,
      disable_stitch: true,
    });
  });

  it('PKCE as TikTok documents it: a hex SHA-256 challenge; an RFC 7636 base64url challenge is refused at the exchange', async () => {
    const verifier = randomBytes(48).toString('base64url');
    expect(providers.tiktok.oauth.codeChallengeOf!(verifier)).toBe(createHash('sha256').update(verifier).digest('hex'));
    const base64url = createHash('sha256').update(verifier).digest('base64url');
    const { code } = await consent(
      providers.tiktok.oauth.authorizeUrl({ app, state: 'p', codeChallenge: base64url }).url,
    );
    expect(
      await failure(() => providers.tiktok.oauth.exchangeCode({ app, code, codeVerifier: verifier })),
    ).toMatchObject({ networkCode: 'invalid_request' });
  });

  it('publishes a video by PULL_FROM_URL: PROCESSING_DOWNLOAD -> PUBLISH_COMPLETE -> public id (int64 kept exact)', async () => {
    const result = await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'funny #cat',
      media: [video()],
      options: { privacy_level: 'PUBLIC_TO_EVERYONE' },
    });
    expect(result.platformPostId).toMatch(/^7\d{18}$/);
    expect(result.url).toMatch(
      new RegExp(`^https://www\\.tiktok\\.com/@sandbox\\.\\w+/video/${result.platformPostId}$`),
    );
    const [post] = await sandbox.posts('tiktok');
    expect(post).toMatchObject({
      id: result.platformPostId,
      text: 'funny #cat',
      options: { privacy_level: 'PUBLIC_TO_EVERYONE', source: 'PULL_FROM_URL' },
    });
  });

  it('publishes a video by FILE_UPLOAD and photos; a SELF_ONLY post keeps its publish id', async () => {
    const uploaded = await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'upload',
      media: [video()],
      options: { privacy_level: 'MUTUAL_FOLLOW_FRIENDS', source: 'FILE_UPLOAD' },
    });
    expect(uploaded.platformPostId).toMatch(/^\d{19}$/);
    const photos = await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'photos',
      media: [photo(), photo()],
      options: { privacy_level: 'PUBLIC_TO_EVERYONE', title: 'Two' },
    });
    expect(photos.url).toContain('/photo/');
    const private_ = await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'private',
      media: [video()],
      options: { privacy_level: 'SELF_ONLY' },
    });
    expect(private_.platformPostId).toMatch(/^v_pub_url~v2\.\d+$/);
    expect((await sandbox.posts('tiktok')).map((post) => post.options.source)).toEqual([
      'FILE_UPLOAD',
      'PULL_FROM_URL',
      'PULL_FROM_URL',
    ]);
  });

  /** Library media: a stored file streamed by span, with a public URL on a host that is not verified. */
  const stored = (bytes: Buffer): MediaInput => ({
    url: 'https://api.example.com/media/med_unverifiedhost00000000000',
    kind: 'video',
    source: {
      contentType: 'video/mp4',
      sizeBytes: bytes.length,
      open: async (span) => Readable.from([span === undefined ? bytes : bytes.subarray(span.start, span.end + 1)]),
    },
  });
  const mp4Of = (size: number) =>
    Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), randomBytes(size - 12)]);

  it('sends a video outside the verified prefixes by FILE_UPLOAD, one inside by PULL_FROM_URL', async () => {
    await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'pulled',
      media: [video()],
      options: { privacy_level: 'SELF_ONLY' },
    });
    await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'pushed',
      media: [stored(mp4Of(300_000))],
      options: { privacy_level: 'SELF_ONLY' },
    });
    expect((await sandbox.posts('tiktok')).map((post) => [post.text, post.options.source])).toEqual([
      ['pulled', 'PULL_FROM_URL'],
      ['pushed', 'FILE_UPLOAD'],
    ]);
    // An adapter that wrongly believes a host verified is refused by TikTok (the sandbox) with url_ownership_unverified.
    const misconfigured = testProviders(sandbox.baseUrl, { TIKTOK_VERIFIED_URL_PREFIXES: 'http://127.0.0.2' });
    const refused = await failure(() =>
      misconfigured.tiktok.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: 'http://127.0.0.2/v.mp4', kind: 'video' }],
        options: { privacy_level: 'SELF_ONLY' },
      }),
    );
    expect(refused).toMatchObject({ networkCode: 'url_ownership_unverified' });
  });

  it('uploads a 5 to 10 MB video in one chunk and a 25 MB one in chunks the sandbox checks', async () => {
    const seven = mp4Of(7 * 1024 * 1024);
    const result = await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'seven',
      media: [stored(seven)],
      options: { privacy_level: 'SELF_ONLY' },
    });
    expect(result.platformPostId).toMatch(/^v_pub_file/);
    const big = await providers.tiktok.publish.post({
      credentials: credentials(),
      text: 'big',
      media: [stored(mp4Of(25 * 1024 * 1024 + 3))],
      options: { privacy_level: 'SELF_ONLY' },
    });
    expect(big.platformPostId).toMatch(/^v_pub_file/);
    expect((await sandbox.posts('tiktok')).map((post) => post.options.source)).toEqual(['FILE_UPLOAD', 'FILE_UPLOAD']);
  });

  it('refuses text-only posts and a missing privacy_level before any call; checks creator privacy options', async () => {
    expect(
      (
        await failure(() =>
          providers.tiktok.publish.post({
            credentials: credentials(),
            text: 'x',
            media: [],
            options: { privacy_level: 'SELF_ONLY' },
          }),
        )
      ).networkCode,
    ).toBe('media_required');
    expect(
      (await failure(() => providers.tiktok.publish.post({ credentials: credentials(), text: 'x', media: [video()] })))
        .networkCode,
    ).toBe('privacy_level_required');
    const follower = await failure(() =>
      providers.tiktok.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [video()],
        options: { privacy_level: 'FOLLOWER_OF_CREATOR' },
      }),
    );
    expect(follower).toMatchObject({ kind: 'validation', networkCode: 'privacy_level_option_mismatch' });
  });

  it('media failures: broken URL -> FAILED video_pull_failed; PNG photos -> file_format_check_failed; both media_invalid', async () => {
    const broken = await failure(() =>
      providers.tiktok.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/missing.mp4'), kind: 'video' }],
        options: { privacy_level: 'SELF_ONLY' },
      }),
    );
    expect(broken).toMatchObject({ kind: 'media_invalid', networkCode: 'video_pull_failed' });
    const png = await failure(() =>
      providers.tiktok.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/image.png'), kind: 'image' }],
        options: { privacy_level: 'SELF_ONLY' },
      }),
    );
    expect(png).toMatchObject({ kind: 'media_invalid', networkCode: 'file_format_check_failed' });
    const brokenUpload = await failure(() =>
      providers.tiktok.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/missing.mp4'), kind: 'video' }],
        options: { privacy_level: 'SELF_ONLY', source: 'FILE_UPLOAD' },
      }),
    );
    expect(brokenUpload).toMatchObject({ kind: 'media_invalid', networkCode: 'media_download_failed' });
  });

  describe('faults', () => {
    const publish = () =>
      providers.tiktok.publish.post({
        credentials: credentials(),
        text: 'f',
        media: [video()],
        options: { privacy_level: 'SELF_ONLY' },
      });

    it('rate_limit -> rate_limited; no header is documented, so the 1-minute window is the retry time', async () => {
      await sandbox.fault('tiktok', 'rate_limit');
      expect(await failure(publish)).toMatchObject({
        kind: 'rate_limited',
        status: 429,
        networkCode: 'rate_limit_exceeded',
        retryAfterMs: 60_000,
      });
    });
    it('server_error -> transient', async () => {
      await sandbox.fault('tiktok', 'server_error');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', networkCode: 'internal_error' });
    });
    it('timeout -> transient', async () => {
      await sandbox.fault('tiktok', 'timeout');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', networkCode: 'timeout' });
    });
    it('token_expired -> auth_expired', async () => {
      await sandbox.fault('tiktok', 'token_expired');
      expect(await failure(publish)).toMatchObject({ kind: 'auth_expired', networkCode: 'access_token_invalid' });
    });
    it('token_revoked -> access_token_invalid on the call, auth_revoked on the refresh', async () => {
      await sandbox.fault('tiktok', 'token_revoked');
      expect((await failure(publish)).kind).toBe('auth_expired');
      expect((await failure(() => providers.tiktok.oauth.refresh({ app, refreshToken }))).kind).toBe('auth_revoked');
    });
    it('duplicate -> duplicate (spam_risk)', async () => {
      await sandbox.fault('tiktok', 'duplicate');
      expect(await failure(publish)).toMatchObject({ kind: 'duplicate', networkCode: 'spam_risk' });
    });
    it('quota_exhausted (spam_risk_too_many_posts) -> the account is deferred a whole day, not retried at once', async () => {
      await sandbox.fault('tiktok', 'quota_exhausted');
      expect(await failure(publish)).toMatchObject({
        kind: 'quota_exhausted',
        retryable: true,
        networkCode: 'spam_risk_too_many_posts',
        retryAfterMs: 86_400_000,
      });
    });
    it('recovers on the next call after a transient fault', async () => {
      await sandbox.fault('tiktok', 'server_error', 1);
      expect((await failure(publish)).kind).toBe('transient');
      await expect(publish()).resolves.toMatchObject({ platformPostId: expect.stringMatching(/^v_pub_url~/) });
    });
  });
});
