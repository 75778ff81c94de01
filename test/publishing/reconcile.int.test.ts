import type { Network } from '@svc/providers';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, validBody, waitForFinal } from './publishing-support.ts';

const NETWORKS: Network[] = ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'];

/**
 * The uncertain outcomes of docs/api-conventions.md, "Sandbox faults" end to end: the network creates the
 * post and its answer is lost (connection dropped) or comes after the client gave up (PROVIDER_TIMEOUT_MS is
 * 2 s in the harness). The publisher looks the post up through the network's read API: exactly one post,
 * reported published with its native id where the network can be asked, and `outcome_unknown` with the reason
 * where it cannot (TikTok lists no private posts), never a second post.
 */
describe('publishing: reconciling uncertain outcomes with the network', () => {
  let system: SystemHarness;
  let auth: string;
  const accounts: Partial<Record<Network, string>> = {};

  beforeAll(async () => {
    system = await startSystem({
      services: ['accounts', 'publisher'],
      env: { DELIVERY_RECONCILE_DELAYS_MS: '300,300,300' },
    });
    auth = `Bearer ${await system.token()}`;
    for (const network of NETWORKS) accounts[network] = await connectAccount(system, auth, network);
  }, 60_000);

  afterAll(async () => system?.close());

  const publishOnce = async (network: Network) => {
    const body = validBody(system, [accounts[network]!]);
    const res = await request(system.gateway).post('/v1/publish').set('Authorization', auth).send(body);
    expect(res.status).toBe(202);
    const post = await waitForFinal(system, auth, res.body.job_id, 30_000);
    const mine = async () => (await system.sandbox.posts(network)).filter((item) => item.text === body.text);
    return { post, onNetwork: await mine(), mine };
  };

  it.each<[Network, 'lost_response' | 'slow_response']>([
    ['x', 'lost_response'],
    ['x', 'slow_response'],
    ['facebook', 'lost_response'],
    ['facebook', 'slow_response'],
    ['instagram', 'lost_response'],
    ['instagram', 'slow_response'],
    ['linkedin', 'lost_response'],
  ])('%s %s: one post, published with the id the network has', async (network, fault) => {
    await system.sandbox.outcomeFault(network, fault, 1, 4);
    const { post, onNetwork } = await publishOnce(network);
    expect(onNetwork).toHaveLength(1);
    expect(post.status).toBe('published');
    expect(post.results[0]).toEqual(
      expect.objectContaining({ status: 'published', platform_post_id: onNetwork[0]!.id, attempts: 1 }),
    );
  });

  it('facebook reel lost_response (the finish answer): one reel, published with its video id, looked up through it', async () => {
    await system.sandbox.outcomeFault('facebook', 'lost_response');
    const text = `reel ${Date.now()}`;
    const res = await request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send({
        account_ids: [accounts.facebook],
        text,
        media_urls: [system.media.url('/reel.mp4')],
        provider_options: { facebook: { post_type: 'reel' } },
      });
    expect([res.status, res.body.error]).toEqual([202, undefined]);
    const post = await waitForFinal(system, auth, res.body.job_id, 30_000);
    const reels = (await system.sandbox.posts('facebook')).filter((item) => item.text === text);
    expect(reels).toEqual([expect.objectContaining({ options: { post_type: 'reel' } })]);
    expect(post.results[0]).toEqual(
      expect.objectContaining({
        status: 'published',
        platform_post_id: reels[0]!.id,
        platform_post_url: `https://www.facebook.com/reel/${reels[0]!.id}`,
        attempts: 1,
      }),
    );
  });

  // LinkedIn without r_member_social is the same path: libs/providers/test/lookup.int.test.ts.
  it.each<[Network, string]>([['tiktok', 'cannot be verified']])(
    '%s lost_response: one post, outcome_unknown saying why the network could not be asked',
    async (network, reason) => {
      await system.sandbox.outcomeFault(network, 'lost_response');
      const { post, onNetwork, mine } = await publishOnce(network);
      expect(onNetwork.length).toBeLessThanOrEqual(1);
      expect(post.results[0]).toEqual(
        expect.objectContaining({ status: 'failed', error_code: 'outcome_unknown', attempts: 1 }),
      );
      expect(post.results[0]!.error_message).toContain(reason);
      expect(await mine()).toHaveLength(onNetwork.length);
    },
  );
});
