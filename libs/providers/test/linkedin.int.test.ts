import { Readable } from 'node:stream';
import { PDFDocument } from 'pdf-lib';
import { type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { consent, failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

const app = {
  clientId: 'li-client',
  clientSecret: 'li-secret',
  redirectUri: 'https://app.example.com/oauth/linkedin/callback',
  scopes: ['openid', 'profile', 'email', 'w_member_social'],
};

describe('LinkedIn adapter against the sandbox', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;
  let accessToken: string;
  let refreshToken: string;
  let author: string;

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
    const { url, pkce } = providers.linkedin.oauth.authorizeUrl({ app, state: 'li-state' });
    expect(pkce).toBe('none');
    const { code, state } = await consent(url);
    expect(state).toBe('li-state');
    const tokens = await providers.linkedin.oauth.exchangeCode({ app, code });
    accessToken = tokens.accessToken;
    refreshToken = tokens.refreshToken!;
    author = (await providers.linkedin.profile.fetch({ accessToken })).platformAccountId;
  });

  const credentials = () => ({ accessToken, extras: { author_urn: author } });

  it('exchanges a code for 60-day tokens; refresh keeps the same refresh token (not rotated)', async () => {
    expect(author).toMatch(/^urn:li:person:\w+$/);
    const renewed = await providers.linkedin.oauth.refresh({ app, refreshToken });
    expect(renewed.accessToken).not.toBe(accessToken);
    expect(renewed.refreshToken).toBe(refreshToken);
    expect(renewed.expiresAt!.getTime() - Date.now()).toBeGreaterThan(59 * 86_400_000);
    expect(renewed.refreshExpiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 365 * 86_400_000);
    await providers.linkedin.oauth.revoke({ app, token: renewed.accessToken });
    expect((await failure(() => providers.linkedin.profile.fetch({ accessToken: renewed.accessToken }))).kind).toBe(
      'auth_revoked',
    );
    expect(await failure(() => providers.linkedin.oauth.refresh({ app, refreshToken }))).toMatchObject({
      kind: 'auth_revoked',
      networkCode: 'invalid_grant',
    });
  });

  it('profile of an organization author', async () => {
    const profile = await providers.linkedin.profile.fetch({
      accessToken,
      extras: { author_urn: 'urn:li:organization:2414183' },
    });
    expect(profile).toMatchObject({ platformAccountId: 'urn:li:organization:2414183', handle: 'sandbox-org-2414183' });
  });

  it('organization pages: the vetted app lists the pages the member administers and posts as each; LinkedIn refuses other pages and members without w_organization_social', async () => {
    const orgApp = {
      ...app,
      clientId: 'cma-li-client',
      scopes: ['openid', 'profile', 'w_organization_social', 'r_organization_social', 'rw_organization_admin'],
    };
    const { code } = await consent(providers.linkedin.oauth.authorizeUrl({ app: orgApp, state: 's' }).url);
    const orgToken = (await providers.linkedin.oauth.exchangeCode({ app: orgApp, code })).accessToken;
    const pages = await providers.linkedin.authors!.list({ accessToken: orgToken });
    expect(pages).toHaveLength(2);
    expect(pages[0]).toMatchObject({
      platformAccountId: expect.stringMatching(/^urn:li:organization:\d+$/),
      extras: { author_urn: pages[0]!.platformAccountId },
    });
    const posted = await providers.linkedin.publish.post({
      credentials: { accessToken: orgToken, extras: pages[1]!.extras },
      text: 'from the page',
      media: [],
    });
    expect(posted.platformPostId).toMatch(/^urn:li:share:/);
    const foreign = await failure(() =>
      providers.linkedin.publish.post({
        credentials: { accessToken: orgToken, extras: { author_urn: 'urn:li:organization:2414183' } },
        text: 'not mine',
        media: [],
      }),
    );
    expect(foreign).toMatchObject({ kind: 'permission_missing', status: 403, networkCode: 'ACCESS_DENIED' });
    // The member-only token (w_member_social) cannot post as a page nor list them.
    const asPage = await failure(() =>
      providers.linkedin.publish.post({
        credentials: { accessToken, extras: pages[0]!.extras },
        text: 'member token',
        media: [],
      }),
    );
    expect(asPage).toMatchObject({ kind: 'permission_missing', status: 403 });
    expect(await failure(() => providers.linkedin.authors!.list({ accessToken }))).toMatchObject({
      kind: 'permission_missing',
    });
  });

  it('publishes text (escaped little text), one image, several images and a video', async () => {
    const text = await providers.linkedin.publish.post({
      credentials: credentials(),
      text: 'Hello (world) #launch [v2]',
      media: [],
    });
    expect(text.platformPostId).toMatch(/^urn:li:share:\d+$/);
    expect(text.url).toBe(`https://www.linkedin.com/feed/update/${text.platformPostId}`);
    await providers.linkedin.publish.post({
      credentials: credentials(),
      text: 'one image',
      media: [{ url: media.url('/image.jpg'), kind: 'image' }],
    });
    await providers.linkedin.publish.post({
      credentials: credentials(),
      text: 'two images',
      media: [
        { url: media.url('/image.jpg'), kind: 'image' },
        { url: media.url('/image.png'), kind: 'image' },
      ],
    });
    const video = await providers.linkedin.publish.post({
      credentials: credentials(),
      text: 'video',
      media: [{ url: media.url('/video.mp4'), kind: 'video' }],
    });
    expect(video.platformPostId).toMatch(/^urn:li:ugcPost:\d+$/);
    const posts = await sandbox.posts('linkedin');
    // The sandbox renders commentary like LinkedIn: escaped text survives whole.
    expect(posts[0]!.text).toBe('Hello (world) #launch [v2]');
    // ...and `#launch` reached LinkedIn as a hashtag element, not as escaped plain text.
    expect(posts[0]!.options.hashtags).toEqual(['launch']);
    expect(posts.map((post) => post.media.map((item) => item.kind))).toEqual([
      [],
      ['image'],
      ['image', 'image'],
      ['video'],
    ]);
  });

  /** A PDF of `pages` blank pages, as library media (streamed from memory like storage). */
  const pdfMedia = async (pages: number) => {
    const document = await PDFDocument.create();
    for (let page = 0; page < pages; page += 1) document.addPage([200, 200]);
    const bytes = Buffer.from(await document.save());
    return {
      url: media.url('/deck.pdf'),
      kind: 'document' as const,
      pageCount: pages,
      source: { contentType: 'application/pdf', sizeBytes: bytes.length, open: async () => Readable.from([bytes]) },
    };
  };

  /** The author's posts as LinkedIn's Posts API finder reads them back. */
  const readBack = async (token: string, urn: string) => {
    const response = await fetch(
      `${sandbox.baseUrl}/linkedin/rest/posts?q=author&author=${encodeURIComponent(urn)}&count=10`,
      {
        headers: {
          Authorization: `Bearer ${token}`,
          'LinkedIn-Version': new Date().toISOString().slice(0, 7).replace('-', ''),
          'X-RestLi-Method': 'FINDER',
        },
      },
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { elements: { id: string; content?: unknown }[] }).elements;
  };

  it('publishes a PDF document (initializeUpload, PUT, status until AVAILABLE, post with its title); the lookup finds it by its document URN', async () => {
    const token = 'byok-li-document';
    const profile = await providers.linkedin.profile.fetch({ accessToken: token });
    const owner = { accessToken: token, extras: profile.extras };
    const since = new Date(Date.now() - 1000);
    const handles: string[] = [];
    const posted = await providers.linkedin.publish.post({
      credentials: owner,
      text: 'Our quarterly deck',
      media: [await pdfMedia(3)],
      options: { post_type: 'document', title: 'Q3 results' },
      onHandle: async (handle) => void handles.push(handle),
    });
    const urn = (JSON.parse(handles[0]!.slice('media:'.length)) as string[])[0]!;
    expect(urn).toMatch(/^urn:li:document:/);
    const [stored] = await sandbox.posts('linkedin');
    expect(stored).toMatchObject({ id: posted.platformPostId, media: [{ url: urn, kind: 'document' }] });
    const [element] = await readBack(token, profile.platformAccountId);
    expect(element).toMatchObject({ id: posted.platformPostId, content: { media: { id: urn, title: 'Q3 results' } } });
    expect(
      await providers.linkedin.lookup.find({
        credentials: owner,
        text: 'other words',
        mediaCount: 1,
        since,
        excludeIds: [],
        handle: handles[0]!,
      }),
    ).toEqual({ status: 'found', result: expect.objectContaining({ platformPostId: posted.platformPostId }) });
  });

  it('documents: no title or a second medium is refused before LinkedIn is called; LinkedIn fails a 301-page PDF in processing', async () => {
    const document = await pdfMedia(2);
    expect(
      await failure(() =>
        providers.linkedin.publish.post({
          credentials: credentials(),
          text: 'deck',
          media: [document],
          options: { post_type: 'document' },
        }),
      ),
    ).toMatchObject({ kind: 'validation', networkCode: 'document_title' });
    expect(
      await failure(() =>
        providers.linkedin.publish.post({
          credentials: credentials(),
          text: 'deck',
          media: [document, { url: media.url('/image.jpg'), kind: 'image' }],
          options: { post_type: 'document', title: 'Deck' },
        }),
      ),
    ).toMatchObject({ kind: 'validation', networkCode: 'media_kind_mismatch' });
    // The library refuses such a file at ingest (its page count is measured); here the count is
    // understated to reach LinkedIn, whose own processing refuses it.
    const long = await pdfMedia(301);
    const refused = await failure(() =>
      providers.linkedin.publish.post({
        credentials: credentials(),
        text: 'too long',
        media: [{ ...long, pageCount: 300 }],
        options: { post_type: 'document', title: 'Long deck' },
      }),
    );
    expect(refused).toMatchObject({ kind: 'media_invalid', networkCode: 'PROCESSING_FAILED' });
    expect(await sandbox.posts('linkedin')).toEqual([]);
  });

  it('multi-image: 2 to 20 images with alt text per image, read back as content.multiImage', async () => {
    const token = 'byok-li-multi';
    const profile = await providers.linkedin.profile.fetch({ accessToken: token });
    const images = Array.from({ length: 20 }, (_, index) => ({
      url: media.url(index % 2 === 0 ? '/image.jpg' : '/image.png'),
      kind: 'image' as const,
      altText: `slide ${index + 1}`,
    }));
    const posted = await providers.linkedin.publish.post({
      credentials: { accessToken: token, extras: profile.extras },
      text: 'twenty slides',
      media: images,
    });
    const [element] = await readBack(token, profile.platformAccountId);
    const multi = (element as { content: { multiImage: { images: { id: string; altText?: string }[] } } }).content
      .multiImage.images;
    expect(element!.id).toBe(posted.platformPostId);
    expect(multi.map((image) => image.altText)).toEqual(images.map((image) => image.altText));
    expect(multi.every((image) => image.id.startsWith('urn:li:image:'))).toBe(true);
    expect(
      await failure(() =>
        providers.linkedin.publish.post({
          credentials: credentials(),
          text: 'too many',
          media: [...images, images[0]!],
        }),
      ),
    ).toMatchObject({ kind: 'validation', networkCode: 'media_count' });
  });

  it('media problems: broken URL -> media_invalid before LinkedIn is called; a non-video fails processing', async () => {
    const broken = await failure(() =>
      providers.linkedin.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/missing.jpg'), kind: 'image' }],
      }),
    );
    expect(broken).toMatchObject({ kind: 'media_invalid', network: 'linkedin' });
    const notVideo = await failure(() =>
      providers.linkedin.publish.post({
        credentials: credentials(),
        text: 'x',
        media: [{ url: media.url('/image.jpg'), kind: 'video' }],
      }),
    );
    expect(notVideo).toMatchObject({ kind: 'media_invalid', networkCode: 'PROCESSING_FAILED' });
  });

  describe('faults', () => {
    const publish = () =>
      providers.linkedin.publish.post({ credentials: credentials(), text: `fault ${Math.random()}`, media: [] });

    it('rate_limit -> quota_exhausted deferred to midnight UTC (LinkedIn limits are daily and send no reset header)', async () => {
      await sandbox.fault('linkedin', 'rate_limit');
      const error = await failure(publish);
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      expect(error).toMatchObject({
        kind: 'quota_exhausted',
        retryable: true,
        status: 429,
        networkCode: 'TOO_MANY_REQUESTS',
      });
      expect(Math.abs(Date.now() + error.retryAfterMs! - midnight.getTime())).toBeLessThan(60_000);
    });

    it('a sunset LinkedIn-Version (426 NONEXISTENT_VERSION) fails once, not retryable, telling the operator to set LINKEDIN_VERSION', async () => {
      const stale = testProviders(sandbox.baseUrl, { LINKEDIN_VERSION: '202401' });
      const error = await failure(() =>
        stale.linkedin.publish.post({ credentials: credentials(), text: 'old version', media: [] }),
      );
      expect(error).toMatchObject({
        kind: 'validation',
        retryable: false,
        status: 426,
        networkCode: 'NONEXISTENT_VERSION',
      });
      expect(error.networkMessage).toContain('LINKEDIN_VERSION');
    });
    it('server_error -> transient', async () => {
      await sandbox.fault('linkedin', 'server_error');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', status: 500 });
    });
    it('timeout -> transient', async () => {
      await sandbox.fault('linkedin', 'timeout');
      expect(await failure(publish)).toMatchObject({ kind: 'transient', networkCode: 'timeout' });
    });
    it('token_expired -> auth_expired', async () => {
      await sandbox.fault('linkedin', 'token_expired');
      expect(await failure(publish)).toMatchObject({ kind: 'auth_expired', networkCode: 'EXPIRED_ACCESS_TOKEN' });
    });
    it('token_revoked -> auth_revoked, and the grant stays revoked: its token and refresh token are refused too', async () => {
      await sandbox.fault('linkedin', 'token_revoked');
      expect(await failure(publish)).toMatchObject({ kind: 'auth_revoked', networkCode: 'REVOKED_ACCESS_TOKEN' });
      expect(await failure(() => providers.linkedin.profile.fetch({ accessToken }))).toMatchObject({
        kind: 'auth_revoked',
        networkCode: 'REVOKED_ACCESS_TOKEN',
      });
      expect(await failure(() => providers.linkedin.oauth.refresh({ app, refreshToken }))).toMatchObject({
        kind: 'auth_revoked',
      });
    });
    it('duplicate -> duplicate (422 DUPLICATE_POST), also for a real repeat', async () => {
      await sandbox.fault('linkedin', 'duplicate');
      expect(await failure(publish)).toMatchObject({ kind: 'duplicate', status: 422, networkCode: 'DUPLICATE_POST' });
      await providers.linkedin.publish.post({ credentials: credentials(), text: 'same text', media: [] });
      expect(
        (
          await failure(() =>
            providers.linkedin.publish.post({ credentials: credentials(), text: 'same text', media: [] }),
          )
        ).kind,
      ).toBe('duplicate');
    });
  });
});
