import { type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { consent, failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

const app = {
  clientId: 'ig-app-1',
  clientSecret: 'ig-secret',
  redirectUri: 'https://app.example.com/oauth/instagram/callback',
  scopes: ['instagram_basic', 'instagram_content_publish', 'instagram_manage_insights'],
};

describe('Instagram adapter against the sandbox', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;
  let accessToken: string;
  let igUserId: string;

  beforeAll(async () => {
    sandbox = await startSandbox();
    media = await startMediaServer();
    providers = testProviders(sandbox.baseUrl);
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });
  beforeEach(async () => {
    await sandbox.reset();
    const { code } = await consent(providers.instagram.oauth.authorizeUrl({ app, state: 's' }).url);
    accessToken = (await providers.instagram.oauth.exchangeCode({ app, code })).accessToken;
    igUserId = (await providers.instagram.profile.fetch({ accessToken })).platformAccountId;
  });

  const credentials = () => ({ accessToken, extras: { ig_user_id: igUserId } });
  const jpeg = () => ({ url: media.url('/image.jpg'), kind: 'image' as const });
  const mp4 = () => ({ url: media.url('/video.mp4'), kind: 'video' as const });

  it('finds the professional account linked to a Page, and validates an explicit ig_user_id', async () => {
    expect(igUserId).toMatch(/^1784\d+$/);
    const profile = await providers.instagram.profile.fetch({ accessToken, extras: { ig_user_id: igUserId } });
    expect(profile).toMatchObject({ platformAccountId: igUserId, handle: expect.stringMatching(/^sandbox_ig_/) });
  });

  it("keeps the linked Page's token, which publishes to the Instagram account as is", async () => {
    const profile = await providers.instagram.profile.fetch({ accessToken });
    expect(profile).toMatchObject({
      platformAccountId: igUserId,
      extras: { ig_user_id: igUserId, token_kind: 'page' },
      accessToken: expect.any(String),
    });
    expect(profile.accessToken).not.toBe(accessToken);
    const result = await providers.instagram.publish.post({
      credentials: { accessToken: profile.accessToken!, extras: profile.extras },
      text: 'with the page token',
      media: [jpeg()],
    });
    expect(result.platformPostId).toMatch(/^17\d{15}$/);
  });

  it('publishes an image through container -> FINISHED -> media_publish and returns the permalink', async () => {
    const result = await providers.instagram.publish.post({
      credentials: credentials(),
      text: 'hello #sandbox',
      media: [jpeg()],
    });
    expect(result.platformPostId).toMatch(/^17\d{15}$/);
    expect(result.url).toMatch(/^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    const [post] = await sandbox.posts('instagram');
    expect(post).toMatchObject({ id: result.platformPostId, text: 'hello #sandbox', media: [{ kind: 'image' }] });
  });

  it('publishes a reel and a mixed carousel', async () => {
    const reel = await providers.instagram.publish.post({ credentials: credentials(), text: 'reel', media: [mp4()] });
    expect(reel.url).toContain('/reel/');
    const carousel = await providers.instagram.publish.post({
      credentials: credentials(),
      text: 'carousel',
      media: [jpeg(), mp4(), jpeg()],
    });
    const posts = await sandbox.posts('instagram');
    expect(posts[1]).toMatchObject({ id: carousel.platformPostId, options: { media_type: 'CAROUSEL' } });
    expect(posts[1]!.media.map((item) => item.kind)).toEqual(['image', 'video', 'image']);
  });

  it('refuses text-only posts and more than 10 carousel items before any call', async () => {
    expect(
      await failure(() =>
        providers.instagram.publish.post({ credentials: credentials(), text: 'just text', media: [] }),
      ),
    ).toMatchObject({
      kind: 'validation',
      networkCode: 'media_required',
    });
    const eleven = Array.from({ length: 11 }, jpeg);
    expect(
      (await failure(() => providers.instagram.publish.post({ credentials: credentials(), text: 'x', media: eleven })))
        .networkCode,
    ).toBe('media_count');
  });

  it('fails a broken image URL (2207052) and a PNG (JPEG only) as media_invalid, and a broken video via container ERROR', async () => {
    const broken = await failure(() =>
      providers.instagram.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/missing.jpg'), kind: 'image' }],
      }),
    );
    expect(broken).toMatchObject({ kind: 'media_invalid', networkCode: '9004/2207052' });
    const png = await failure(() =>
      providers.instagram.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/image.png'), kind: 'image' }],
      }),
    );
    expect(png).toMatchObject({ kind: 'media_invalid', networkCode: '9004/2207005' });
    const video = await failure(() =>
      providers.instagram.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/missing.mp4'), kind: 'video' }],
      }),
    );
    expect(video).toMatchObject({ kind: 'media_invalid', networkCode: 'ERROR/2207052' });
    expect(await sandbox.posts('instagram')).toHaveLength(0);
  });

  it('fails an image that stops being served once its container exists: container ERROR, permanent and explained', async () => {
    const gone = await failure(() =>
      providers.instagram.publish.post({
        credentials: credentials(),
        text: 'gone',
        media: [{ url: media.url('/once/gone.jpg'), kind: 'image' }],
      }),
    );
    expect(gone).toMatchObject({
      kind: 'media_invalid',
      networkCode: 'ERROR/2207052',
      retryable: false,
      uncertain: false,
      networkMessage: expect.stringContaining('Instagram could not fetch the media from its URL'),
    });
    expect(await sandbox.posts('instagram')).toHaveLength(0);
  });

  describe('faults', () => {
    const publish = () => providers.instagram.publish.post({ credentials: credentials(), text: 'f', media: [jpeg()] });

    it('rate_limit -> rate_limited (80002) with the retry time from the BUC header', async () => {
      await sandbox.fault('instagram', 'rate_limit', 1, 300);
      expect(await failure(publish)).toMatchObject({
        kind: 'rate_limited',
        networkCode: '80002',
        retryAfterMs: 300_000,
      });
    });
    it('server_error -> transient', async () => {
      await sandbox.fault('instagram', 'server_error');
      expect((await failure(publish)).kind).toBe('transient');
    });
    it('timeout -> transient', async () => {
      await sandbox.fault('instagram', 'timeout');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', networkCode: 'timeout' });
    });
    it('token_expired -> auth_expired', async () => {
      await sandbox.fault('instagram', 'token_expired');
      expect((await failure(publish)).kind).toBe('auth_expired');
    });
    it('token_revoked -> auth_revoked, and the grant stays revoked: re-checking the token is refused too', async () => {
      await sandbox.fault('instagram', 'token_revoked');
      expect((await failure(publish)).kind).toBe('auth_revoked');
      expect(
        await failure(() => providers.instagram.profile.fetch({ accessToken, extras: { ig_user_id: igUserId } })),
      ).toMatchObject({
        kind: 'auth_revoked',
        networkCode: '190/458',
      });
    });
    it('duplicate -> duplicate', async () => {
      await sandbox.fault('instagram', 'duplicate');
      expect((await failure(publish)).kind).toBe('duplicate');
    });
  });
});
