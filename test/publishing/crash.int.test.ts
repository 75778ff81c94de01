import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { startHookedPublisher, type HookedPublisher } from './hooked-publisher.ts';
import { connectAccount, sleep, waitForFinal } from './publishing-support.ts';

/**
 * A worker that dies between the network accepting a post and the post being recorded must not
 * cause a second post, nor a false failure: the delivery is left in flight, its lease is no longer
 * renewed, and once it runs out another handler takes the delivery over, finds the post through the
 * network's read API and records it as published with its native id.
 */
describe('publishing: a worker dying mid-delivery', () => {
  let system: SystemHarness;
  let publisher: HookedPublisher | undefined;
  let auth: string;
  const died: { deliveries: string[] } = { deliveries: [] };

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts'] });
    publisher = await startHookedPublisher(system, {
      name: 'crash_publisher',
      env: { DELIVERY_LEASE_MS: '1500', DELIVERY_SWEEP_INTERVAL_MS: '500' },
      // The first delivery's worker dies right after the network accepted the post: nothing is
      // recorded and its lease is no longer renewed, like a process killed there.
      afterNetworkCall: (deliveryId) => {
        if (died.deliveries.length > 0) return Promise.resolve();
        died.deliveries.push(deliveryId);
        return Promise.reject(new Error('the worker died after the network call'));
      },
    });
    auth = `Bearer ${await system.token()}`;
  }, 60_000);

  afterAll(async () => {
    await publisher?.stop();
    await system?.close();
  });

  it("produces exactly one post and reports it published with the network's own id", async () => {
    const x = await connectAccount(system, auth, 'x');
    const linkedin = await connectAccount(system, auth, 'linkedin');
    const text = `crash window ${Date.now()}`;
    const res = await request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send({ account_ids: [x], text });
    expect(res.status).toBe(202);

    const post = await waitForFinal(system, auth, res.body.job_id, 15_000);
    expect(died.deliveries).toHaveLength(1);
    const onNetwork = (await system.sandbox.posts('x')).filter((item) => item.text === text);
    expect(onNetwork).toHaveLength(1);
    expect(post.status).toBe('published');
    expect(post.results[0]).toEqual(
      expect.objectContaining({ status: 'published', platform_post_id: onNetwork[0]!.id, attempts: 1 }),
    );
    // Kept: nothing to wait for but a second post that should never come; a second gives one time to show.
    await sleep(1000);
    expect((await system.sandbox.posts('x')).filter((item) => item.text === text)).toHaveLength(1);

    // The service is healthy afterwards: the next job publishes normally.
    const next = await request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send({ account_ids: [x, linkedin], text: `${text} again` });
    expect((await waitForFinal(system, auth, next.body.job_id)).status).toBe('published');
  });
});
