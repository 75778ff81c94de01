import request from 'supertest';
import { uniqueName } from '@svc/testing';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { startHookedPublisher, type HookedPublisher } from './hooked-publisher.ts';
import { connectAccount, waitForFinal } from './publishing-support.ts';

/**
 * A worker that dies in the middle of a delivery of several steps: after X created a thread's second
 * part, or after a network created a post whose first comment was still to come, and before either
 * was recorded. Its lease runs out, another handler takes the delivery over, asks the network about
 * the step that was running, finds it and goes on: every part and every comment exists exactly once.
 */
describe('publishing: a worker dying between the steps of a thread or a first comment', () => {
  let system: SystemHarness;
  let publisher: HookedPublisher | undefined;
  let auth: string;
  /** The network call after which the worker dies (1: the first post of the delivery), once. */
  const plan: { dieAfterCall: number | null; calls: number; died: string[] } = {
    dieAfterCall: null,
    calls: 0,
    died: [],
  };

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts'] });
    publisher = await startHookedPublisher(system, {
      name: 'steps_crash_publisher',
      env: {
        DELIVERY_LEASE_MS: '1500',
        DELIVERY_SWEEP_INTERVAL_MS: '500',
        DELIVERY_RECONCILE_DELAYS_MS: '300,300,300',
      },
      afterNetworkCall: (deliveryId) => {
        plan.calls += 1;
        if (plan.dieAfterCall === null || plan.calls !== plan.dieAfterCall) return Promise.resolve();
        plan.dieAfterCall = null;
        plan.died.push(deliveryId);
        return Promise.reject(new Error('the worker died after the network call'));
      },
    });
    auth = `Bearer ${await system.token(uniqueName('org_steps_crash'))}`;
  }, 120_000);

  afterAll(async () => {
    await publisher?.stop();
    await system?.close();
  }, 120_000);

  const arm = (call: number) => Object.assign(plan, { dieAfterCall: call, calls: 0 });

  it('a thread whose worker dies after part 2 reached X: part 2 is found, part 3 follows, none is posted twice', async () => {
    const x = await connectAccount(system, auth, 'x');
    const id = uniqueName('crash thread');
    const parts = [1, 2, 3].map((n) => `${id} part ${n}`);
    arm(2);
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [x], thread: parts.map((text) => ({ text })) });
    expect(res.status).toBe(202);
    const post = await waitForFinal(system, auth, res.body.id as string, 30_000);
    expect(plan.died).toHaveLength(1);
    const onX = (await system.sandbox.posts('x')).filter((item) => parts.includes(item.text));
    expect(onX.map((item) => item.text)).toEqual(parts);
    expect(onX.map((item) => item.options.in_reply_to_tweet_id)).toEqual([undefined, onX[0]!.id, onX[1]!.id]);
    expect(post.status).toBe('published');
    const result = post.results[0] as (typeof post.results)[number] & { parts: { platform_post_id: string }[] };
    expect(result.parts.map((part) => part.platform_post_id)).toEqual(onX.map((item) => item.id));
  });

  it('a post whose worker dies before its first comment: the post is found, commented on once, published', async () => {
    const facebook = await connectAccount(system, auth, 'facebook');
    const text = uniqueName('crash before comment');
    arm(1);
    plan.died.length = 0;
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [facebook], text, first_comment: { text: 'after the crash' } });
    expect(res.status).toBe(202);
    const post = await waitForFinal(system, auth, res.body.id as string, 30_000);
    expect(plan.died).toHaveLength(1);
    const onNetwork = (await system.sandbox.posts('facebook')).filter((item) => item.text === text);
    expect(onNetwork).toHaveLength(1);
    const comments = (await system.sandbox.comments('facebook')).filter((item) => item.post_id === onNetwork[0]!.id);
    expect(comments).toEqual([expect.objectContaining({ text: 'after the crash' })]);
    expect(post.status).toBe('published');
    expect(post.results[0]).toEqual(
      expect.objectContaining({
        status: 'published',
        platform_post_id: onNetwork[0]!.id,
        first_comment: expect.objectContaining({ status: 'published', platform_comment_id: comments[0]!.id }),
      }),
    );
  });
});
