import { type CommentLookupInput, type Credentials, type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { consent, failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

type Commenting = 'instagram' | 'facebook' | 'linkedin' | 'x';

/**
 * X threads (each part replying to the one before) and first comments on every network that takes
 * them, against the sandbox: made, refused, and looked up after a lost answer through the network's
 * own listing (docs/networks.md, "Threads and first comments").
 */
describe('threads and first comments', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;

  beforeAll(async () => {
    sandbox = await startSandbox();
    media = await startMediaServer();
    providers = testProviders(sandbox.baseUrl);
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });
  beforeEach(() => sandbox.reset());

  const connected = async (network: Commenting, token: string): Promise<Credentials> => ({
    accessToken: token,
    extras: (await providers[network].profile.fetch({ accessToken: token })).extras,
  });
  const publish = (network: Commenting, credentials: Credentials, text: string) =>
    providers[network].publish.post({
      credentials,
      text,
      media: network === 'instagram' ? [{ url: media.url('/image.jpg'), kind: 'image' }] : [],
    });
  const find = (
    network: Commenting,
    input: Omit<CommentLookupInput, 'since' | 'excludeIds'> & Partial<CommentLookupInput>,
  ) => providers[network].comments!.find({ since: new Date(Date.now() - 1000), excludeIds: [], ...input });

  it('X: a part published in reply to the one before; its lookup needs the same parent', async () => {
    const credentials = await connected('x', 'byok-x-thread');
    const since = new Date(Date.now() - 1000);
    const one = await providers.x.publish.post({ credentials, text: 'thread one', media: [] });
    const two = await providers.x.publish.post({
      credentials,
      text: 'thread two',
      media: [],
      inReplyTo: one.platformPostId,
    });
    const posts = await sandbox.posts('x');
    expect(posts.map((post) => [post.text, post.options])).toEqual([
      ['thread one', {}],
      ['thread two', { in_reply_to_tweet_id: one.platformPostId }],
    ]);
    const ask = (inReplyTo: string) =>
      providers.x.lookup.find({ credentials, text: 'thread two', mediaCount: 0, since, excludeIds: [], inReplyTo });
    expect(await ask(one.platformPostId)).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: two.platformPostId }),
    });
    expect(await ask(two.platformPostId)).toEqual({ status: 'absent' });
  });

  it.each<Commenting>(['instagram', 'facebook', 'linkedin', 'x'])(
    '%s: a comment under the post; a lost answer is uncertain and the lookup finds it once',
    async (network) => {
      const credentials = await connected(network, `byok-${network}-comments`);
      const post = await publish(network, credentials, `post for comments on ${network}`);
      const made = await providers[network].comments!.create({
        credentials,
        postId: post.platformPostId,
        text: 'first!',
      });
      expect(made.platformCommentId).toEqual(expect.any(String));

      await sandbox.scopedFault(network, 'lost_response', { on: network === 'x' ? 'reply' : 'comment' });
      const lost = await failure(() =>
        providers[network].comments!.create({ credentials, postId: post.platformPostId, text: 'second' }),
      );
      expect(lost).toEqual(expect.objectContaining({ uncertain: true }));
      const found = await find(network, { credentials, postId: post.platformPostId, text: 'second' });
      expect(found).toEqual({ status: 'found', platformCommentId: expect.any(String) });
      expect(found).not.toEqual({ status: 'found', platformCommentId: made.platformCommentId });
      expect(
        await find(network, {
          credentials,
          postId: post.platformPostId,
          text: 'second',
          excludeIds: [(found as { platformCommentId: string }).platformCommentId],
        }),
      ).toEqual({ status: 'absent' });
      expect(await find(network, { credentials, postId: post.platformPostId, text: 'never written' })).toEqual({
        status: 'absent',
      });
    },
  );

  it('Graph and LinkedIn: a refused comment is a permanent refusal, not uncertain', async () => {
    for (const network of ['instagram', 'facebook', 'linkedin'] as const) {
      const credentials = await connected(network, `byok-${network}-refused`);
      const post = await publish(network, credentials, `refused comment on ${network}`);
      await sandbox.scopedFault(network, 'duplicate', { on: 'comment' });
      const refused = await failure(() =>
        providers[network].comments!.create({ credentials, postId: post.platformPostId, text: 'nope' }),
      );
      expect(refused).toEqual(expect.objectContaining({ uncertain: false, retryable: false }));
      expect(await sandbox.comments(network)).toEqual([]);
    }
  });

  it("LinkedIn: a member's comments cannot be read without r_member_social: the lookup cannot answer", async () => {
    const app = { clientId: 'cma-li-client', clientSecret: 'li-secret', redirectUri: 'https://app.example.com/cb' };
    const connect = async (scopes: string[]) => {
      const { code } = await consent(
        providers.linkedin.oauth.authorizeUrl({ app: { ...app, scopes }, state: 's' }).url,
      );
      const { accessToken } = await providers.linkedin.oauth.exchangeCode({ app: { ...app, scopes }, code });
      return { accessToken, extras: (await providers.linkedin.profile.fetch({ accessToken })).extras };
    };
    const writer = await connect(['openid', 'profile', 'w_member_social']);
    const post = await publish('linkedin', writer, 'member post');
    await providers.linkedin.comments!.create({ credentials: writer, postId: post.platformPostId, text: 'hello' });
    expect(
      await failure(() => find('linkedin', { credentials: writer, postId: post.platformPostId, text: 'hello' })),
    ).toEqual(expect.objectContaining({ kind: 'permission_missing' }));
  });

  it('TikTok takes no comment; each adapter has comments exactly where the rules say a first comment is possible', async () => {
    const { postFeatures } = await import('../src/index.ts');
    for (const network of ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const)
      expect(providers[network].comments !== undefined).toBe(postFeatures[network].firstComment);
  });
});
