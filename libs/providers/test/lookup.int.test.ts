import { type Credentials, type LookupInput, type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { consent, failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

/**
 * Every adapter's `lookup` against the sandbox's read endpoints, and the uncertain outcomes
 * (docs/api-conventions.md, "Sandbox faults") as the adapters see them: the post exists, the
 * create call fails `uncertain`, and the lookup finds the post with the id the network gave it.
 */
describe('lookup of uncertain attempts', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;
  const since = () => new Date(Date.now() - 1000);
  const ask = (network: keyof Providers, credentials: Credentials, text: string, extra: Partial<LookupInput> = {}) =>
    providers[network].lookup.find({
      credentials,
      text,
      mediaCount: 0,
      since: extra.since ?? since(),
      excludeIds: [],
      ...extra,
    });

  beforeAll(async () => {
    sandbox = await startSandbox();
    media = await startMediaServer();
    providers = testProviders(sandbox.baseUrl, { TIKTOK_VERIFIED_URL_PREFIXES: new URL(media.url('/')).origin });
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });
  beforeEach(() => sandbox.reset());

  it('X: finds the post by text in the user timeline, excludes ids already taken, and proves absence', async () => {
    const credentials = { accessToken: 'byok-x-lookup', extras: { username: 'someone' } };
    const started = since();
    const posted = await providers.x.publish.post({ credentials, text: 'look me up https://example.com/a', media: [] });
    await providers.x.publish.post({ credentials, text: 'another post', media: [] });
    expect(await ask('x', credentials, 'look me up https://example.com/a', { since: started })).toEqual({
      status: 'found',
      result: { platformPostId: posted.platformPostId, url: expect.stringContaining(posted.platformPostId) },
    });
    expect(
      await ask('x', credentials, 'look me up https://example.com/a', {
        since: started,
        excludeIds: [posted.platformPostId],
      }),
    ).toEqual({ status: 'absent' });
    expect(await ask('x', credentials, 'never posted')).toEqual({ status: 'absent' });
    // Posts from before the attempt (less a minute of clock skew) are not candidates.
    expect(await ask('x', credentials, 'another post', { since: new Date(Date.now() + 120_000) })).toEqual({
      status: 'absent',
    });
  });

  it('X: a lost answer and a late answer fail `uncertain`; the post exists and is found', async () => {
    const credentials = { accessToken: 'byok-x-uncertain', extras: { username: 'someone' } };
    for (const fault of ['lost_response', 'slow_response'] as const) {
      await sandbox.outcomeFault('x', fault, 1, 4);
      const text = `uncertain ${fault}`;
      const error = await failure(() => providers.x.publish.post({ credentials, text, media: [] }));
      expect(error).toEqual(expect.objectContaining({ kind: 'transient', uncertain: true }));
      const [onNetwork] = (await sandbox.posts('x')).filter((post) => post.text === text);
      expect(await ask('x', credentials, text)).toEqual({
        status: 'found',
        result: expect.objectContaining({ platformPostId: onNetwork!.id }),
      });
    }
    // The faults applied to the creating calls only: the lookups above went through.
    expect(await sandbox.pendingFaults()).toEqual([]);
  });

  it("Facebook: finds the post in the Page's published_posts", async () => {
    const token = 'byok-fb-lookup';
    const profile = await providers.facebook.profile.fetch({ accessToken: token });
    const credentials = { accessToken: token, extras: profile.extras };
    await sandbox.outcomeFault('facebook', 'lost_response');
    expect(await failure(() => providers.facebook.publish.post({ credentials, text: 'page post', media: [] }))).toEqual(
      expect.objectContaining({ uncertain: true }),
    );
    const [onNetwork] = await sandbox.posts('facebook');
    expect(await ask('facebook', credentials, 'page post')).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: onNetwork!.id }),
    });
    expect(await ask('facebook', credentials, 'other')).toEqual({ status: 'absent' });
  });

  it('Instagram: finds the media by caption', async () => {
    const token = 'byok-ig-lookup';
    const profile = await providers.instagram.profile.fetch({ accessToken: token });
    const credentials = { accessToken: token, extras: profile.extras };
    await sandbox.outcomeFault('instagram', 'lost_response');
    const error = await failure(() =>
      providers.instagram.publish.post({
        credentials,
        text: 'a caption',
        media: [{ url: media.url('/image.jpg'), kind: 'image' }],
      }),
    );
    expect(error).toEqual(expect.objectContaining({ uncertain: true }));
    const [onNetwork] = await sandbox.posts('instagram');
    expect(await ask('instagram', credentials, 'a caption')).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: onNetwork!.id }),
    });
  });

  it('LinkedIn: reading member posts needs r_member_social; without it the lookup cannot answer', async () => {
    // r_member_social is a restricted scope: only an app with the product (a `cma-` client in the sandbox) may ask for it.
    const connect = async (scopes: string[]) => {
      const app = {
        clientId: 'cma-li-client',
        clientSecret: 'li-secret',
        redirectUri: 'https://app.example.com/cb',
        scopes,
      };
      const { code } = await consent(providers.linkedin.oauth.authorizeUrl({ app, state: 's' }).url);
      const { accessToken } = await providers.linkedin.oauth.exchangeCode({ app, code });
      const profile = await providers.linkedin.profile.fetch({ accessToken });
      return { accessToken, extras: profile.extras };
    };
    const writer = await connect(['openid', 'profile', 'w_member_social']);
    await providers.linkedin.publish.post({ credentials: writer, text: 'hello #linkedin (with) @reserved', media: [] });
    expect(await failure(() => ask('linkedin', writer, 'hello #linkedin (with) @reserved'))).toEqual(
      expect.objectContaining({ kind: 'permission_missing' }),
    );
    const reader = await connect(['openid', 'profile', 'w_member_social', 'r_member_social']);
    const [onNetwork] = await sandbox.posts('linkedin');
    expect(await ask('linkedin', reader, 'hello #linkedin (with) @reserved')).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: onNetwork!.id }),
    });
  });

  it('hands a long processing over to reconciliation: uncertain with its handle, then pending, then found (TikTok, Instagram)', async () => {
    const handoff = testProviders(sandbox.baseUrl, {
      PROVIDER_HANDOFF_POLL_MAX_ATTEMPTS: 1,
      TIKTOK_VERIFIED_URL_PREFIXES: new URL(media.url('/')).origin,
    });
    const handles: string[] = [];
    const onHandle = async (handle: string) => void handles.push(handle);
    const tiktok = { accessToken: 'byok-tt-handoff', extras: { username: 'sandbox.someone' } };
    const error = await failure(() =>
      handoff.tiktok.publish.post({
        credentials: tiktok,
        text: 'slow photo',
        media: [{ url: media.url('/image.jpg'), kind: 'image' }],
        options: { privacy_level: 'SELF_ONLY' },
        onHandle,
      }),
    );
    expect(error).toEqual(expect.objectContaining({ networkCode: 'PROCESSING', uncertain: true }));
    let answer = await ask('tiktok', tiktok, 'slow photo', { handle: handles[0] });
    for (let i = 0; i < 5 && answer.status === 'pending'; i += 1)
      answer = await ask('tiktok', tiktok, 'slow photo', { handle: handles[0] });
    expect(answer).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: expect.any(String) }),
    });

    const token = 'byok-ig-handoff';
    const instagram = {
      accessToken: token,
      extras: (await handoff.instagram.profile.fetch({ accessToken: token })).extras,
    };
    const igError = await failure(() =>
      handoff.instagram.publish.post({
        credentials: instagram,
        text: 'slow caption',
        media: [{ url: media.url('/image.jpg'), kind: 'image' }],
        onHandle,
      }),
    );
    expect(igError).toEqual(expect.objectContaining({ uncertain: true }));
    // The container was never published: verifiably absent, so posting again cannot duplicate it.
    expect(await ask('instagram', instagram, 'slow caption', { handle: handles[1] })).toEqual(
      expect.objectContaining({ status: expect.stringMatching(/^(absent|pending)$/) }),
    );
    expect(await sandbox.posts('instagram')).toEqual([]);
  });

  it('TikTok: asks through the publish_id the attempt stored; without one only a public match counts', async () => {
    const credentials = { accessToken: 'byok-tt-lookup', extras: { username: 'sandbox.someone' } };
    const handles: string[] = [];
    const result = await providers.tiktok.publish.post({
      credentials,
      text: 'a photo',
      media: [{ url: media.url('/image.jpg'), kind: 'image' }],
      options: { privacy_level: 'SELF_ONLY' },
      onHandle: async (handle) => void handles.push(handle),
    });
    expect(handles).toHaveLength(1);
    expect(await ask('tiktok', credentials, 'a photo', { handle: handles[0] })).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: result.platformPostId }),
    });
    expect(await failure(() => ask('tiktok', credentials, 'a photo'))).toEqual(
      expect.objectContaining({ networkCode: 'lookup_unverifiable' }),
    );
  });
});
