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

  describe('reels', () => {
    const reelVideo = (path = '/reel.mp4') => ({ url: media.url(path), kind: 'video' as const });
    const reel = (text: string, extra: Partial<Parameters<Providers['facebook']['publish']['post']>[0]> = {}) =>
      providers.facebook.publish.post({
        credentials: credentials(),
        text,
        media: [reelVideo()],
        options: { post_type: 'reel' },
        ...extra,
      });
    /** The Page token, for calls made beside the adapter. */
    const pageToken = async () => (await providers.facebook.authors!.list({ accessToken }))[0]!.accessToken!;
    const graph = async (method: string, path: string, token: string, headers: Record<string, string> = {}) => {
      const response = await fetch(path.startsWith('http') ? path : `${sandbox.baseUrl}/facebook/v25.0${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...headers },
      });
      return (await response.json()) as Record<string, unknown>;
    };

    it('publishes through start, upload and finish: the video id, the reel URL, listed by the Page', async () => {
      const handles: string[] = [];
      const result = await reel('a reel', { onHandle: async (handle) => void handles.push(handle) });
      expect(result.platformPostId).toMatch(/^\d+$/);
      expect(result.url).toBe(`https://www.facebook.com/reel/${result.platformPostId}`);
      expect(handles).toEqual([`reel:${result.platformPostId}`]);
      expect(await sandbox.posts('facebook')).toEqual([
        expect.objectContaining({
          id: result.platformPostId,
          text: 'a reel',
          options: { post_type: 'reel' },
          media: [{ url: media.url('/reel.mp4'), kind: 'video' }],
        }),
      ]);
      const token = await pageToken();
      const listed = await graph('GET', `/${pageId}/video_reels?fields=id,description`, token);
      expect(listed.data).toEqual([{ id: result.platformPostId, description: 'a reel' }]);
      const feed = await graph('GET', `/${pageId}/published_posts?fields=id,message`, token);
      expect(feed.data).toEqual([{ id: result.platformPostId, message: 'a reel' }]);
      const status = await graph('GET', `/${result.platformPostId}?fields=status,permalink_url`, token);
      expect(status).toMatchObject({
        permalink_url: `/reel/${result.platformPostId}/`,
        status: { video_status: 'ready', publishing_phase: { status: 'complete' } },
      });
      // A first comment goes under the reel's video, as the Page.
      const comment = await providers.facebook.comments!.create({
        credentials: credentials(),
        postId: result.platformPostId,
        text: 'first!',
      });
      expect(await sandbox.comments('facebook')).toEqual([
        expect.objectContaining({ id: comment.platformCommentId, post_id: result.platformPostId, account: pageId }),
      ]);
    });

    it('refuses a reel that breaks the rules before any call, and Facebook refuses one whose facts were not known', async () => {
      const measured = await failure(() =>
        reel('too wide', { media: [{ ...reelVideo('/video.mp4'), durationMs: 3500, width: 640, height: 360 }] }),
      );
      expect(measured).toMatchObject({ kind: 'validation', networkCode: 'reel_aspect_ratio,reel_dimensions' });
      // Without measured facts the file reaches Facebook, which reads it and refuses it at finish.
      const wide = await failure(() => reel('too wide', { media: [reelVideo('/video.mp4')] }));
      expect(wide).toMatchObject({ kind: 'validation', networkCode: '100', status: 400 });
      expect(wide.networkMessage).toContain('9:16');
      const long = await failure(() => reel('too long', { media: [reelVideo('/reel-long.mp4')] }));
      expect(long.networkMessage).toContain('between 3 and 90 seconds');
      expect(await sandbox.posts('facebook')).toEqual([]);
    });

    it('defers past the 30 reels a Page may publish in 24 h, until the oldest of them leaves the window', async () => {
      const first = Date.now();
      for (let n = 0; n < 30; n += 1) await reel(`reel ${n}`);
      const refused = await failure(() => reel('one too many'));
      expect(refused).toMatchObject({ kind: 'quota_exhausted', networkCode: '4' });
      // The slot frees 24 h after the first reel was published.
      expect(refused.retryAfterMs).toBeGreaterThan(first + 86_400_000 - Date.now() - 1000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(86_400_000);
      expect(await sandbox.posts('facebook')).toHaveLength(30);
    });

    it('a lost finish answer is reconciled through the video: found, never a second reel', async () => {
      const handles: string[] = [];
      await sandbox.outcomeFault('facebook', 'lost_response');
      const lost = await failure(() => reel('lost answer', { onHandle: async (handle) => void handles.push(handle) }));
      expect(lost).toMatchObject({ kind: 'transient', uncertain: true });
      const [handle] = handles;
      const videoId = handle!.replace('reel:', '');
      const lookup = () =>
        providers.facebook.lookup.find({
          credentials: credentials(),
          text: 'lost answer',
          mediaCount: 1,
          since: new Date(Date.now() - 60_000),
          handle,
          excludeIds: [],
        });
      // Finished but still processing: asked again later, never published again.
      expect(await lookup()).toEqual({ status: 'pending' });
      expect(await lookup()).toEqual({
        status: 'found',
        result: { platformPostId: videoId, url: `https://www.facebook.com/reel/${videoId}` },
      });
      // An attempt given the handle back reports the same reel instead of publishing another.
      expect((await reel('lost answer', { resume: handle })).platformPostId).toBe(videoId);
      expect((await sandbox.posts('facebook')).map((post) => post.id)).toEqual([videoId]);
    });

    it('a video uploaded but never finished is absent, and the next attempt finishes that same video', async () => {
      const token = await pageToken();
      const started = await graph('POST', `/${pageId}/video_reels?upload_phase=start`, token);
      await graph('POST', started.upload_url as string, token, { file_url: media.url('/reel.mp4') });
      const handle = `reel:${started.video_id as string}`;
      const lookup = () =>
        providers.facebook.lookup.find({
          credentials: credentials(),
          text: 'unfinished',
          mediaCount: 1,
          since: new Date(Date.now() - 60_000),
          handle,
          excludeIds: [],
        });
      expect(await lookup()).toEqual({ status: 'absent' });
      const handles: string[] = [];
      const result = await reel('unfinished', {
        resume: handle,
        onHandle: async (given) => void handles.push(given),
      });
      expect(result.platformPostId).toBe(started.video_id);
      expect(handles).toEqual([handle]);
      expect((await sandbox.posts('facebook')).map((post) => post.id)).toEqual([started.video_id]);
      expect(await lookup()).toMatchObject({ status: 'found' });
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
