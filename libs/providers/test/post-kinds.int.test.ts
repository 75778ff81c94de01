import { type Credentials, type Network, type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

/**
 * Alt text and post kinds delivered in each network's own shape, read back from the sandbox, which
 * applies the networks' rules (Instagram takes `alt_text` on image containers only and no caption
 * on a story; X's `media/metadata`; TikTok's inbox upload takes no post settings).
 */
describe('alt text and post kinds against the sandbox', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;

  beforeAll(async () => {
    media = await startMediaServer();
    const verified = new URL(media.url('/')).origin;
    sandbox = await startSandbox({ tiktokVerifiedPrefixes: [verified] });
    providers = testProviders(sandbox.baseUrl, { TIKTOK_VERIFIED_URL_PREFIXES: verified });
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });
  beforeEach(() => sandbox.reset());

  const connected = async (network: Network, token: string): Promise<Credentials> => ({
    accessToken: token,
    extras: (await providers[network].profile.fetch({ accessToken: token })).extras,
  });
  const jpeg = (altText?: string) => ({
    url: media.url('/image.jpg'),
    kind: 'image' as const,
    ...(altText === undefined ? {} : { altText }),
  });
  const mp4 = () => ({ url: media.url('/video.mp4'), kind: 'video' as const });

  it.each<[Network, number]>([
    ['instagram', 1],
    ['instagram', 2],
    ['facebook', 1],
    ['facebook', 2],
    ['x', 2],
    ['linkedin', 1],
    ['linkedin', 3],
  ])('%s: alt text reaches each of %i images', async (network, count) => {
    const credentials = await connected(network, `byok-${network}-alt-${count}`);
    const items = Array.from({ length: count }, (_, i) => jpeg(i === 0 && count > 1 ? '' : `described ${i}`));
    const result = await providers[network].publish.post({ credentials, text: `alt ${count}`, media: items });
    const post = (await sandbox.posts(network)).find((item) => item.id === result.platformPostId);
    expect(post?.media.map((item) => item.alt_text)).toEqual(
      items.map((item) => (item.altText ? item.altText : undefined)),
    );
  });

  it('TikTok refuses alt text before any network call', async () => {
    const tiktok = await connected('tiktok', 'byok-tiktok-alt');
    expect(
      await failure(() =>
        providers.tiktok.publish.post({
          credentials: tiktok,
          text: 'x',
          media: [jpeg('a cat')],
          options: { privacy_level: 'SELF_ONLY' },
        }),
      ),
    ).toMatchObject({ kind: 'validation', networkCode: 'alt_text_unsupported' });
    expect(await sandbox.posts('tiktok')).toEqual([]);
  });

  it('Instagram: a reel is a REELS container, a story a STORIES one without caption', async () => {
    const credentials = await connected('instagram', 'byok-instagram-kinds');
    const reel = await providers.instagram.publish.post({
      credentials,
      text: 'a reel',
      media: [mp4()],
      options: { post_type: 'reel', share_to_feed: false },
    });
    expect(reel.url).toContain('/reel/');
    const story = await providers.instagram.publish.post({
      credentials,
      text: 'kept in our record only',
      media: [jpeg()],
      options: { post_type: 'story' },
    });
    const posts = await sandbox.posts('instagram');
    expect(posts.find((post) => post.id === reel.platformPostId)).toMatchObject({
      text: 'a reel',
      options: { media_type: 'REELS' },
      media: [{ kind: 'video' }],
    });
    expect(posts.find((post) => post.id === story.platformPostId)).toMatchObject({
      text: '',
      options: { media_type: 'STORIES' },
      media: [{ kind: 'image' }],
    });
    expect(
      await failure(() =>
        providers.instagram.publish.post({ credentials, text: 'x', media: [jpeg()], options: { post_type: 'reel' } }),
      ),
    ).toMatchObject({ kind: 'validation', networkCode: 'media_kind_mismatch' });
  });

  it('TikTok: a draft goes to the inbox (video init or photos with MEDIA_UPLOAD), identified by its publish id', async () => {
    const credentials = await connected('tiktok', 'byok-tiktok-drafts');
    const video = await providers.tiktok.publish.post({
      credentials,
      text: 'finish me in the app',
      media: [mp4()],
      options: { post_type: 'draft' },
    });
    const photos = await providers.tiktok.publish.post({
      credentials,
      text: 'photo draft',
      media: [jpeg(), jpeg()],
      options: { post_type: 'draft' },
    });
    const photo = await providers.tiktok.publish.post({
      credentials,
      text: 'photo mode',
      media: [jpeg()],
      options: { post_type: 'photo', privacy_level: 'SELF_ONLY' },
    });
    expect(video.platformPostId).toMatch(/^v_inbox_url~/);
    expect(photos.platformPostId).toMatch(/^p_pub_url~/);
    const posts = await sandbox.posts('tiktok');
    expect(posts.find((post) => post.id === video.platformPostId)).toMatchObject({
      options: { post_mode: 'MEDIA_UPLOAD', source: 'PULL_FROM_URL' },
      media: [{ kind: 'video' }],
    });
    expect(posts.find((post) => post.id === photos.platformPostId)).toMatchObject({
      options: { post_mode: 'MEDIA_UPLOAD' },
      media: [{ kind: 'image' }, { kind: 'image' }],
    });
    expect(posts.find((post) => post.options.publish_id !== undefined && post.text === 'photo mode')).toMatchObject({
      options: { post_mode: 'DIRECT_POST', privacy_level: 'SELF_ONLY' },
    });
    expect(photo.platformPostId).toBeDefined();
    // The draft's status is readable through the same lookup a lost answer would use.
    expect(
      await providers.tiktok.lookup.find({
        credentials,
        text: 'finish me in the app',
        mediaCount: 1,
        since: new Date(Date.now() - 60_000),
        handle: video.platformPostId,
        excludeIds: [],
      }),
    ).toEqual({ status: 'found', result: video });
  });
});
