import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { startHookedPublisher, type HookedPublisher } from './hooked-publisher.ts';
import { connectAccount, sleep, waitForFinal, type PostBody } from './publishing-support.ts';

/**
 * The spec's transition table: cancelling a job in `processing` answers 409 and leaves it unchanged.
 * The job is held in `processing` on purpose, not by timing: the publisher's crash-window hook
 * (after the network accepted the post, before it is recorded) waits until the test lets it go.
 */
describe('publishing: cancelling a job while it is processing', () => {
  let system: SystemHarness;
  let publisher: HookedPublisher | undefined;
  let auth: string;
  const held: { deliveryId: string; release: () => void }[] = [];

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts'] });
    publisher = await startHookedPublisher(system, {
      name: 'cancel_publisher',
      afterNetworkCall: (deliveryId) =>
        new Promise<void>((resolve) => void held.push({ deliveryId, release: resolve })),
    });
    auth = `Bearer ${await system.token()}`;
  }, 60_000);

  afterAll(async () => {
    // A delivery still held would keep the publisher's shutdown waiting for its handler.
    for (const hold of held) hold.release();
    await publisher?.stop();
    await system?.close();
  });

  async function waitForHold(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (held.length === 0) {
      if (Date.now() > deadline) throw new Error('no delivery reached the network in 10 s');
      await sleep(20);
    }
  }

  const getPost = async (id: string) => {
    const res = await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', auth);
    expect(res.status).toBe(200);
    return res.body as PostBody;
  };

  it('answers 409 conflict on both families and changes nothing; the delivery then finishes as it would have', async () => {
    const x = await connectAccount(system, auth, 'x');
    const text = `cancel while processing ${Date.now()}`;
    const res = await request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send({ account_ids: [x], text });
    expect(res.status).toBe(202);
    const jobId = res.body.job_id as string;
    await waitForHold();

    const before = await getPost(jobId);
    expect(before.status).toBe('processing');
    for (const route of [`/v1/publish/${jobId}/cancel`, `/v1/posts/${jobId}/cancel`]) {
      const cancel = await request(system.gateway).post(route).set('Authorization', auth);
      expect(cancel.status).toBe(409);
      expect(cancel.body).toEqual({
        error: expect.objectContaining({
          code: 'conflict',
          message: expect.any(String),
          request_id: cancel.headers['x-request-id'],
        }),
      });
    }
    expect(await getPost(jobId)).toEqual(before);
    const history = await request(system.gateway).get('/v1/publish').set('Authorization', auth);
    expect(history.body.items.find((item: { job_id: string }) => item.job_id === jobId)?.status).toBe('processing');

    held[0]!.release();
    const done = await waitForFinal(system, auth, jobId);
    const onNetwork = (await system.sandbox.posts('x')).filter((item) => item.text === text);
    expect(onNetwork).toHaveLength(1);
    expect(done.status).toBe('published');
    expect(done.results).toEqual([
      expect.objectContaining({ account_id: x, status: 'published', platform_post_id: onNetwork[0]!.id, attempts: 1 }),
    ]);
  });
});
