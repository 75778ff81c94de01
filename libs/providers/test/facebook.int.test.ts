import { isProviderError, type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { consent, failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

const app = {
  clientId: 'fb-app-1',
  clientSecret: 'fb-secret',
  redirectUri: 'https://app.example.com/oauth/facebook/callback',
  scopes: ['pages_show_list', 'pages_manage_posts', 'read_insights'],
};

describe('Facebook adapter against the sandbox', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;
  let accessToken: string;
  let pageId: string;

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
    const { url } = providers.facebook.oauth.authorizeUrl({ app, state: 'st-1' });
    const { code } = await consent(url);
    accessToken = (await providers.facebook.oauth.exchangeCode({ app, code })).accessToken;
    pageId = (await providers.facebook.profile.fetch({ accessToken })).platformAccountId;
  });

  const credentials = () => ({ accessToken, extras: { page_id: pageId } });

  it('connects through OAuth: auto-consent, code exchange to a long-lived token, page profile', async () => {
    const { url, pkce } = providers.facebook.oauth.authorizeUrl({ app, state: 'abc' });
    expect(pkce).toBe('none');
    expect(url).toContain('/facebook/v25.0/dialog/oauth?');
    const { code, state } = await consent(url);
    expect(state).toBe('abc');
    const tokens = await providers.facebook.oauth.exchangeCode({ app, code });
    expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 86_400_000);
    const profile = await providers.facebook.profile.fetch({
      accessToken: tokens.accessToken,
      extras: { page_id: pageId },
    });
    expect(profile).toMatchObject({ platformAccountId: pageId, extras: { page_id: pageId } });
    // A used code is refused in Graph's shape.
    const reused = await failure(() => providers.facebook.oauth.exchangeCode({ app, code }));
    expect(reused).toMatchObject({ kind: 'validation', networkCode: '100/36009' });
  });

  it('Pages: each Page the user picked comes with its own non-expiring Page token, stored and used to publish as is', async () => {
    const [page] = await providers.facebook.authors!.list({ accessToken });
    expect(page).toMatchObject({
      platformAccountId: pageId,
      extras: { page_id: pageId, token_kind: 'page' },
      accessToken: expect.stringMatching(/^EAAP/),
    });
    // The connect check with the user token hands back the Page token to store instead.
    expect((await providers.facebook.profile.fetch({ accessToken, extras: { page_id: pageId } })).accessToken).toMatch(
      /^EAAP/,
    );
    const posted = await providers.facebook.publish.post({
      credentials: { accessToken: page!.accessToken!, extras: page!.extras },
      text: `page token ${Date.now()}`,
      media: [],
    });
    expect(posted.platformPostId).toMatch(new RegExp(`^${pageId}_`));
    // A user token cannot obtain the token of a Page it has no role on.
    expect(
      await failure(() => providers.facebook.profile.fetch({ accessToken, extras: { page_id: '123456789012345' } })),
    ).toMatchObject({ kind: 'permission_missing', networkCode: '200' });
  });

  it('lists every Page of a user managing many (cursor paging), each with its token', async () => {
    const pages = await providers.facebook.authors!.list({ accessToken: 'manypages_fb_user' });
    expect(pages).toHaveLength(30);
    expect(new Set(pages.map((page) => page.platformAccountId)).size).toBe(30);
    expect(pages.every((page) => page.accessToken !== undefined)).toBe(true);
  });

  it('refreshes by re-exchanging the long-lived token, and revokes', async () => {
    const renewed = await providers.facebook.oauth.refresh({ app, refreshToken: accessToken });
    expect(renewed.accessToken).not.toBe(accessToken);
    await providers.facebook.oauth.revoke({ app, token: renewed.accessToken });
    const after = await failure(() => providers.facebook.profile.fetch({ accessToken: renewed.accessToken }));
    expect(after.kind).toBe('auth_revoked');
  });

  it('rejects a token starting invalid_ as auth_revoked', async () => {
    const error = await failure(() => providers.facebook.profile.fetch({ accessToken: 'invalid_token' }));
    expect(error).toMatchObject({ kind: 'auth_revoked', networkCode: '190', network: 'facebook' });
  });

  it('publishes text, one photo, several photos and a video with {page}_{post} ids and permalinks', async () => {
    const text = await providers.facebook.publish.post({
      credentials: credentials(),
      text: `hello ${Date.now()}`,
      media: [],
    });
    expect(text.platformPostId).toMatch(new RegExp(`^${pageId}_\\d+$`));
    expect(text.url).toMatch(/^https:\/\/www\.facebook\.com\//);

    const photo = await providers.facebook.publish.post({
      credentials: credentials(),
      text: 'one photo',
      media: [{ url: media.url('/image.jpg'), kind: 'image' }],
    });
    expect(photo.platformPostId).toMatch(/^\d+_\d+$/);

    const multi = await providers.facebook.publish.post({
      credentials: credentials(),
      text: 'two photos',
      media: [
        { url: media.url('/image.jpg'), kind: 'image' },
        { url: media.url('/image.png'), kind: 'image' },
      ],
    });
    const video = await providers.facebook.publish.post({
      credentials: credentials(),
      text: 'a video',
      media: [{ url: media.url('/video.mp4'), kind: 'video' }],
    });
    expect(video.url).toContain('/videos/');

    const posts = await sandbox.posts('facebook');
    expect(posts.map((post) => post.id)).toEqual([
      text.platformPostId,
      photo.platformPostId,
      multi.platformPostId,
      video.platformPostId,
    ]);
    expect(posts[2]!.media).toHaveLength(2);
  });

  it('fails a broken media URL as media_invalid, before any post exists', async () => {
    const error = await failure(() =>
      providers.facebook.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/missing.jpg'), kind: 'image' }],
      }),
    );
    expect(error).toMatchObject({ kind: 'media_invalid', networkCode: '100/2069019', status: 400 });
    const video = await failure(() =>
      providers.facebook.publish.post({
        credentials: credentials(),
        text: 'v',
        media: [{ url: media.url('/missing.mp4'), kind: 'video' }],
      }),
    );
    expect(video.kind).toBe('media_invalid');
    expect(await sandbox.posts('facebook')).toHaveLength(1);
  });

  it('checks content rules before calling the network', async () => {
    const error = await failure(() =>
      providers.facebook.publish.post({ credentials: credentials(), text: '', media: [] }),
    );
    expect(error).toMatchObject({ kind: 'validation', networkCode: 'empty' });
  });

  describe('faults', () => {
    const publish = () =>
      providers.facebook.publish.post({ credentials: credentials(), text: `fault ${Math.random()}`, media: [] });

    it('rate_limit -> rate_limited with the retry time from x-business-use-case-usage', async () => {
      await sandbox.fault('facebook', 'rate_limit', 1, 120);
      const error = await failure(publish);
      expect(error).toMatchObject({ kind: 'rate_limited', networkCode: '80001', retryAfterMs: 120_000 });
    });
    it('server_error -> transient', async () => {
      await sandbox.fault('facebook', 'server_error');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', status: 500, networkCode: '2' });
    });
    it('timeout -> transient after the adapter timeout', async () => {
      await sandbox.fault('facebook', 'timeout');
      // The sandbox holds the request 60 s, past this test's timeout: the adapter's own timeout cut it.
      expect(await failure(publish)).toMatchObject({ kind: 'transient', networkCode: 'timeout' });
    });
    it('token_expired -> auth_expired', async () => {
      await sandbox.fault('facebook', 'token_expired');
      expect(await failure(publish)).toMatchObject({ kind: 'auth_expired', networkCode: '190/463' });
    });
    it('token_revoked -> auth_revoked, and the grant stays revoked: re-checking the token is refused too', async () => {
      await sandbox.fault('facebook', 'token_revoked');
      expect(await failure(publish)).toMatchObject({ kind: 'auth_revoked', networkCode: '190/458' });
      expect(
        await failure(() => providers.facebook.profile.fetch({ accessToken, extras: { page_id: pageId } })),
      ).toMatchObject({
        kind: 'auth_revoked',
        networkCode: '190/458',
      });
    });
    it('duplicate -> duplicate (and the sandbox also refuses a real consecutive duplicate)', async () => {
      await sandbox.fault('facebook', 'duplicate');
      expect(await failure(publish)).toMatchObject({ kind: 'duplicate', networkCode: '506' });
      await providers.facebook.publish.post({ credentials: credentials(), text: 'same words', media: [] });
      const again = await failure(() =>
        providers.facebook.publish.post({ credentials: credentials(), text: 'same words', media: [] }),
      );
      expect(again.kind).toBe('duplicate');
    });
  });

  it('keeps the network message and exposes a public AppError', async () => {
    expect.assertions(4);
    await sandbox.fault('facebook', 'token_expired');
    try {
      await providers.facebook.publish.post({ credentials: credentials(), text: 'x1', media: [] });
    } catch (error) {
      expect(isProviderError(error)).toBe(true);
      if (!isProviderError(error)) return;
      expect(error.networkMessage).toContain('Session has expired');
      expect(error.toAppError().code).toBe('unauthorized');
      expect(JSON.stringify(error)).not.toContain(accessToken);
    }
  });
});
