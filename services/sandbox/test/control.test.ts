import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';

describe('sandbox control API (docs/api-conventions.md, "The network sandbox")', () => {
  const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true });

  it('validates fault bodies and lists pending faults', async () => {
    await request(app).post('/__sandbox/reset').expect(204);
    expect((await request(app).post('/__sandbox/faults').send({ network: 'myspace', fault: 'timeout' })).status).toBe(
      400,
    );
    expect((await request(app).post('/__sandbox/faults').send({ network: 'x', fault: 'explode' })).status).toBe(400);
    expect(
      (await request(app).post('/__sandbox/faults').send({ network: 'x', fault: 'duplicate', count: 0 })).status,
    ).toBe(400);
    const armed = await request(app).post('/__sandbox/faults').send({ network: 'x', fault: 'duplicate', count: 2 });
    expect(armed.status).toBe(201);
    expect((await request(app).get('/__sandbox/faults')).body).toEqual({
      pending: [{ network: 'x', fault: 'duplicate', remaining: 2 }],
    });
    await request(app).post('/__sandbox/reset').expect(204);
    expect((await request(app).get('/__sandbox/faults')).body).toEqual({ pending: [] });
  });

  it('arms uncertain outcomes only for calls that create a post: the post exists, the answer is lost', async () => {
    await request(app).post('/__sandbox/reset').expect(204);
    expect(
      (
        await request(app)
          .post('/__sandbox/faults')
          .send({ network: 'facebook', fault: 'slow_response', delay_seconds: -1 })
      ).status,
    ).toBe(400);
    expect(
      (await request(app).post('/__sandbox/faults').send({ network: 'facebook', fault: 'lost_response' })).status,
    ).toBe(201);
    expect((await request(app).get('/__sandbox/faults')).body).toEqual({
      pending: [{ network: 'facebook', fault: 'lost_response', remaining: 1 }],
    });
    // A read does not consume it; the creating call does, and its connection is dropped.
    await request(app).get('/facebook/v25.0/99/published_posts').query({ access_token: 'tok' }).expect(200);
    await expect(
      request(app).post('/facebook/v25.0/99/feed').send({ message: 'lost', access_token: 'tok' }),
    ).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await request(app).get('/__sandbox/posts').query({ network: 'facebook' })).body.posts).toEqual([
      expect.objectContaining({ text: 'lost' }),
    ]);
    const listed = await request(app)
      .get('/facebook/v25.0/99/published_posts')
      .query({ access_token: 'tok', fields: 'id,message,created_time' });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ message: 'lost', created_time: expect.stringMatching(/\+0000$/) }),
    ]);
    expect((await request(app).get('/__sandbox/faults')).body).toEqual({ pending: [] });
  });

  it("answers the calls that create a post after the network's create latency, and nothing else", async () => {
    await request(app).post('/__sandbox/reset').expect(204);
    for (const body of [
      { network: 'myspace', create_ms: 10 },
      { network: 'x', create_ms: -1 },
      { network: 'x', create_ms: 1.5 },
      { network: 'x', create_ms: '300' },
      { network: 'x', create_ms: 60_001 },
      { network: 'x' },
    ]) {
      expect((await request(app).put('/__sandbox/latency').send(body)).status).toBe(400);
    }
    const set = await request(app).put('/__sandbox/latency').send({ network: 'facebook', create_ms: 300 });
    expect(set.body).toEqual({ latency: { facebook: { create_ms: 300 } } });
    // The answer waits on a timer of the network's latency: the timer the sandbox set is observed, not the clock.
    const timers: { ms: number | undefined; fired: boolean }[] = [];
    const realSetTimeout = global.setTimeout;
    const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((
      callback: (...args: unknown[]) => void,
      ms?: number,
      ...args: unknown[]
    ) => {
      const timer = { ms, fired: false };
      timers.push(timer);
      return realSetTimeout(() => {
        timer.fired = true;
        callback(...args);
      }, ms);
    }) as typeof setTimeout);
    try {
      await request(app).post('/facebook/v25.0/99/feed').send({ message: 'late', access_token: 'tok' }).expect(200);
    } finally {
      spy.mockRestore();
    }
    // Answered only once a timer of the full 300 ms had fired.
    expect(timers.filter((timer) => timer.ms === 300)).toEqual([{ ms: 300, fired: true }]);
    // With a minute of latency, a call it wrongly delayed would outlive the test's 5 s.
    await request(app).put('/__sandbox/latency').send({ network: 'facebook', create_ms: 0 }).expect(200);
    expect((await request(app).put('/__sandbox/latency').send({ network: 'x', create_ms: 60_000 })).body).toEqual({
      latency: { x: { create_ms: 60_000 } },
    });
    await request(app)
      .post('/facebook/v25.0/99/feed')
      .send({ message: 'another network', access_token: 'tok' })
      .expect(200);
    await request(app).put('/__sandbox/latency').send({ network: 'facebook', create_ms: 60_000 }).expect(200);
    await request(app).get('/facebook/v25.0/99/published_posts').query({ access_token: 'tok' }).expect(200);
    await request(app).post('/__sandbox/reset').expect(204);
    await request(app)
      .post('/facebook/v25.0/99/feed')
      .send({ message: 'after reset', access_token: 'tok' })
      .expect(200);
  });

  it('lists received posts per network and validates metrics', async () => {
    await request(app).post('/__sandbox/reset').expect(204);
    await request(app).post('/facebook/v25.0/99/feed').send({ message: 'recorded', access_token: 'tok' }).expect(200);
    const posts = await request(app).get('/__sandbox/posts').query({ network: 'facebook' });
    expect(posts.body.posts).toEqual([
      expect.objectContaining({
        network: 'facebook',
        account: '99',
        text: 'recorded',
        media: [],
        id: expect.stringMatching(/^99_/),
      }),
    ]);
    expect((await request(app).get('/__sandbox/posts').query({ network: 'nope' })).status).toBe(400);
    expect(
      (
        await request(app)
          .post('/__sandbox/metrics')
          .send({ network: 'x', post_id: '1', metrics: { likes: 'many' } })
      ).status,
    ).toBe(400);
    expect(
      (
        await request(app)
          .post('/__sandbox/metrics')
          .send({ network: 'x', post_id: '1', metrics: { like_count: 3 } })
      ).status,
    ).toBe(204);
  });
});
