import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal, type Network, type PostBody } from './publishing-support.ts';

type Commenting = Exclude<Network, 'tiktok'>;
const COMMENTING: Commenting[] = ['instagram', 'facebook', 'linkedin', 'x'];

interface FirstComment {
  status: string;
  platform_comment_id: string | null;
  error_code: string | null;
  error_message: string | null;
}
type Result = PostBody['results'][number] & { first_comment?: FirstComment };

/**
 * First comments end to end (docs/api-conventions.md, "First comments"): posted under each target's
 * post once it is published, with an outcome of its own in the result and the webhooks; refused, it
 * leaves the post published; its answer lost, it is looked up in the post's comments and never made twice.
 */
describe('publishing: first comments', () => {
  let system: SystemHarness;
  let receiver: Receiver;
  let auth: string;
  const accounts = {} as Record<Network, string>;

  beforeAll(async () => {
    receiver = await startReceiver();
    system = await startSystem({
      services: ['accounts', 'publisher', 'webhook-dispatcher'],
      env: { DELIVERY_RECONCILE_DELAYS_MS: '300,300,300', WEBHOOK_RETRY_JITTER: '0' },
    });
    const org = uniqueName('org_fc');
    auth = `Bearer ${await system.token(org)}`;
    for (const network of [...COMMENTING, 'tiktok'] as const)
      accounts[network] = await connectAccount(system, auth, network);
    const endpoint = await request(system.gateway)
      .post('/v1/webhooks')
      .set('Authorization', auth)
      .send({ url: receiver.url('/hooks'), events: ['post.published'] });
    expect(endpoint.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
    await system?.close();
  }, 120_000);

  const publish = async (networks: Network[], comment: string) => {
    const text = `hello ${uniqueName('post')}`;
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({
        account_ids: networks.map((network) => accounts[network]),
        text,
        media_urls: [system.media.url('/image.jpg')],
        first_comment: { text: comment },
      });
    expect(res.status).toBe(202);
    expect((res.body as { results: Result[] }).results.map((result) => result.first_comment?.status)).toEqual(
      networks.map(() => 'pending'),
    );
    const post = await waitForFinal(system, auth, res.body.id as string, 30_000);
    return { post, results: post.results as Result[], text };
  };
  /** The comments the network holds under a post: Graph and LinkedIn comments, or replies on X. */
  const commentsUnder = async (network: Commenting, postId: string) =>
    network === 'x'
      ? (await system.sandbox.posts('x'))
          .filter((post) => post.options.in_reply_to_tweet_id === postId)
          .map((post) => ({ id: post.id, text: post.text }))
      : (await system.sandbox.comments(network)).filter((comment) => comment.post_id === postId);

  it('comments under the post on Instagram, Facebook, LinkedIn and X, each with the id the network gave it; the webhook says so', async () => {
    const { post, results } = await publish(COMMENTING, 'first!');
    expect(post.status).toBe('published');
    for (const [index, network] of COMMENTING.entries()) {
      const result = results[index]!;
      expect(result.status).toBe('published');
      const onNetwork = await commentsUnder(network, result.platform_post_id!);
      expect(onNetwork).toEqual([expect.objectContaining({ text: 'first!' })]);
      expect(result.first_comment).toEqual({
        status: 'published',
        platform_comment_id: network === 'linkedin' ? expect.stringContaining(onNetwork[0]!.id) : onNetwork[0]!.id,
        error_code: null,
        error_message: null,
      });
    }
    const [hook] = (await receiver.waitFor('/hooks', 1, 20_000)).filter(
      (entry) => (JSON.parse(entry.rawBody) as { data: { id: string } }).data.id === post.id,
    );
    expect((JSON.parse(hook!.rawBody) as { data: { first_comment: unknown } }).data.first_comment).toEqual(
      COMMENTING.map((network, index) => ({
        account_id: accounts[network],
        ...results[index]!.first_comment,
      })),
    );
  });

  it('a refused first comment leaves its post published, with the refusal as the comment outcome', async () => {
    await system.sandbox.scopedFault('instagram', 'duplicate', { on: 'comment' });
    const { post, results } = await publish(['instagram', 'facebook'], 'refused on instagram');
    expect(post.status).toBe('published');
    expect(results[0]).toEqual(
      expect.objectContaining({ status: 'published', platform_post_id: expect.any(String), error_code: null }),
    );
    expect(results[0]!.first_comment).toEqual({
      status: 'failed',
      platform_comment_id: null,
      error_code: 'duplicate',
      error_message: expect.stringContaining('Instagram refused the first comment'),
    });
    expect(await commentsUnder('instagram', results[0]!.platform_post_id!)).toEqual([]);
    expect(results[1]!.first_comment?.status).toBe('published');
  });

  it.each<Commenting>(['facebook', 'x', 'linkedin'])(
    '%s: the answer to the comment is lost; it is looked up, found, and never made twice',
    async (network) => {
      await system.sandbox.scopedFault(network, 'lost_response', { on: network === 'x' ? 'reply' : 'comment' });
      const { post, results } = await publish([network], `lost comment on ${network}`);
      expect(post.status).toBe('published');
      const onNetwork = await commentsUnder(network, results[0]!.platform_post_id!);
      expect(onNetwork).toHaveLength(1);
      expect(results[0]!.first_comment).toEqual(
        expect.objectContaining({
          status: 'published',
          platform_comment_id: expect.stringContaining(onNetwork[0]!.id),
        }),
      );
      expect(results[0]!.attempts).toBe(1);
    },
  );

  it('TikTok takes no first comment and comments have each network limit: create answers 400, validate lists both', async () => {
    const body = {
      account_ids: [accounts.tiktok, accounts.linkedin],
      text: 'with a long comment',
      media_urls: [system.media.url('/image.jpg')],
      platform_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
      first_comment: { text: 'c'.repeat(1300) },
    };
    const created = await request(system.gateway).post('/v1/posts').set('Authorization', auth).send(body);
    expect(created.status).toBe(400);
    const validated = await request(system.gateway).post('/v1/posts/validate').set('Authorization', auth).send(body);
    expect(validated.status).toBe(200);
    expect(validated.body.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          account_id: accounts.tiktok,
          path: '/body/first_comment',
          rule: 'first_comment_unsupported',
        }),
        expect.objectContaining({
          account_id: accounts.linkedin,
          path: '/body/first_comment/text',
          rule: 'text_length',
          message: expect.stringContaining('1250 characters'),
        }),
      ]),
    );
    const capabilities = await request(system.gateway)
      .get(`/v1/accounts/${accounts.tiktok}/capabilities`)
      .set('Authorization', auth);
    expect(capabilities.body).toEqual(expect.objectContaining({ first_comment: false, threads: false }));
    const x = await request(system.gateway).get(`/v1/accounts/${accounts.x}/capabilities`).set('Authorization', auth);
    expect(x.body).toEqual(expect.objectContaining({ first_comment: true, threads: true }));
  });
});
