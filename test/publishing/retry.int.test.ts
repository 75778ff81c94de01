import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal } from './publishing-support.ts';

/**
 * Retrying a post's failed targets end to end (docs/api-conventions.md, "Retry failed targets"):
 * only the failed target is delivered again, never the published one; a post with nothing to retry
 * is a 409; an Idempotency-Key repeats the first answer; two retries at once deliver once.
 */
describe('publishing: retry failed targets', () => {
  let system: SystemHarness;
  let auth: string;
  let x: string;
  let linkedin: string;

  beforeAll(async () => {
    // Two quick lookups of an uncertain attempt, then outcome_unknown.
    system = await startSystem({
      services: ['accounts', 'publisher'],
      env: { DELIVERY_RECONCILE_DELAYS_MS: '200,200' },
    });
    auth = `Bearer ${await system.token(uniqueName('org_retry'))}`;
    x = await connectAccount(system, auth, 'x');
    linkedin = await connectAccount(system, auth, 'linkedin');
  }, 90_000);

  afterAll(async () => system?.close(), 60_000);

  const onNetwork = async (network: 'x' | 'linkedin', text: string) =>
    (await system.sandbox.posts(network)).filter((post) => post.text === text).length;

  /** A post to X and LinkedIn whose LinkedIn target failed for good (the sandbox refused it once). */
  const partialPost = async () => {
    const text = uniqueName('retry me');
    await system.sandbox.fault('linkedin', 'duplicate', 1);
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [x, linkedin], text });
    expect(res.status).toBe(202);
    const post = await waitForFinal(system, auth, res.body.id as string);
    expect(post.status).toBe('partial');
    expect(post.results).toEqual([
      expect.objectContaining({ provider: 'x', status: 'published' }),
      expect.objectContaining({ provider: 'linkedin', status: 'failed', error_code: 'duplicate', attempts: 1 }),
    ]);
    return { id: post.id, text };
  };

  it('delivers only the failed target again, with a fresh attempt budget; the published one is never re-posted', async () => {
    const { id, text } = await partialPost();
    const retried = await request(system.gateway).post(`/v1/posts/${id}/retry`).set('Authorization', auth);
    expect(retried.status).toBe(202);
    expect(retried.body.status).toBe('queued');
    expect(retried.body.results[1]).toEqual(
      expect.objectContaining({ status: 'pending', error_code: null, attempts: 0 }),
    );

    const post = await waitForFinal(system, auth, id);
    expect(post.status).toBe('published');
    expect(post.results[1]).toEqual(expect.objectContaining({ status: 'published', attempts: 1 }));
    expect(await onNetwork('x', text)).toBe(1);
    expect(await onNetwork('linkedin', text)).toBe(1);

    const nothing = await request(system.gateway).post(`/v1/posts/${id}/retry`).set('Authorization', auth);
    expect(nothing.status).toBe(409);
    expect(nothing.body.error.code).toBe('conflict');
  });

  it('answers the first retry again for the same Idempotency-Key, without a second retry', async () => {
    const { id, text } = await partialPost();
    const key = uniqueName('retry-key');
    const first = await request(system.gateway)
      .post(`/v1/publish/${id}/retry`)
      .set('Authorization', auth)
      .set('Idempotency-Key', key);
    expect(first.status).toBe(202);
    await waitForFinal(system, auth, id);
    const again = await request(system.gateway)
      .post(`/v1/publish/${id}/retry`)
      .set('Authorization', auth)
      .set('Idempotency-Key', key);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect((await waitForFinal(system, auth, id)).status).toBe('published');
    expect(await onNetwork('linkedin', text)).toBe(1);
  });

  it('delivers once when two retries race', async () => {
    const { id, text } = await partialPost();
    const answers = await Promise.all([
      request(system.gateway).post(`/v1/posts/${id}/retry`).set('Authorization', auth),
      request(system.gateway).post(`/v1/posts/${id}/retry`).set('Authorization', auth),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([202, 409]);
    expect((await waitForFinal(system, auth, id)).status).toBe('published');
    expect(await onNetwork('linkedin', text)).toBe(1);
    expect(await onNetwork('x', text)).toBe(1);
  });

  it("lets a failed post's text be fixed before the retry sends it", async () => {
    const { id, text } = await partialPost();
    const fixed = `${text} fixed`;
    const current = await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', auth);
    const version = current.body.version as number;
    const refused = await request(system.gateway)
      .patch(`/v1/posts/${id}`)
      .set('Authorization', auth)
      .send({ account_ids: [x] });
    expect(refused.status).toBe(409);
    const edited = await request(system.gateway)
      .patch(`/v1/posts/${id}`)
      .set('Authorization', auth)
      .set('If-Match', String(version))
      .send({ text: fixed });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual(expect.objectContaining({ status: 'partial', text: fixed, version: version + 1 }));
    const stale = await request(system.gateway)
      .patch(`/v1/posts/${id}`)
      .set('Authorization', auth)
      .set('If-Match', String(version))
      .send({ text: 'stale' });
    expect(stale.status).toBe(409);

    expect((await request(system.gateway).post(`/v1/posts/${id}/retry`).set('Authorization', auth)).status).toBe(202);
    expect((await waitForFinal(system, auth, id)).status).toBe('published');
    expect(await onNetwork('linkedin', fixed)).toBe(1);
    expect(await onNetwork('linkedin', text)).toBe(0);
    expect(await onNetwork('x', text)).toBe(1);
  });

  /**
   * A post to X whose create call left it uncertain (`fault` on the create), and whose lookups then
   * failed (server errors on X's timeline read, one per DELIVERY_RECONCILE_DELAYS_MS value): it ends
   * `outcome_unknown`, whether or not the post exists.
   */
  const unknownOutcome = async (fault: 'lost_response' | 'timeout') => {
    const text = uniqueName('uncertain');
    if (fault === 'lost_response') await system.sandbox.outcomeFault('x', 'lost_response');
    else await system.sandbox.fault('x', 'timeout');
    await system.sandbox.scopedFault('x', 'server_error', { on: 'lookup', count: 2 });
    const res = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({ account_ids: [x], text });
    expect(res.status).toBe(202);
    const post = await waitForFinal(system, auth, res.body.id as string, 30_000);
    expect(post.results[0]).toEqual(expect.objectContaining({ status: 'failed', error_code: 'outcome_unknown' }));
    // Every fault met: the retry's lookup reads the timeline as it is.
    expect(await system.sandbox.pendingFaults()).toEqual([]);
    return { id: post.id, text };
  };

  it('reconciles an outcome_unknown target before anything else: a post the network has becomes published, never sent twice', async () => {
    const { id, text } = await unknownOutcome('lost_response');
    const made = (await system.sandbox.posts('x')).filter((post) => post.text === text);
    expect(made).toHaveLength(1);
    expect((await request(system.gateway).post(`/v1/posts/${id}/retry`).set('Authorization', auth)).status).toBe(202);
    const post = await waitForFinal(system, auth, id, 30_000);
    expect(post.status).toBe('published');
    expect(post.results[0]).toEqual(
      expect.objectContaining({ status: 'published', platform_post_id: made[0]!.id, error_code: null }),
    );
    expect(await onNetwork('x', text)).toBe(1);
  });

  it('re-sends an outcome_unknown target the network verifiably does not have, once', async () => {
    const { id, text } = await unknownOutcome('timeout');
    expect(await onNetwork('x', text)).toBe(0);
    expect((await request(system.gateway).post(`/v1/posts/${id}/retry`).set('Authorization', auth)).status).toBe(202);
    const post = await waitForFinal(system, auth, id, 30_000);
    expect(post.status).toBe('published');
    expect(await onNetwork('x', text)).toBe(1);
    expect(post.results[0]!.platform_post_id).toBe(
      (await system.sandbox.posts('x')).find((item) => item.text === text)!.id,
    );
  });

  it('answers 409 while a post has not failed, and 404 for another organization', async () => {
    const queued = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .send({
        account_ids: [x],
        text: uniqueName('fine'),
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      });
    const early = await request(system.gateway).post(`/v1/posts/${queued.body.id}/retry`).set('Authorization', auth);
    expect(early.status).toBe(409);

    const { id } = await partialPost();
    const other = `Bearer ${await system.token(uniqueName('org_retry_other'))}`;
    for (const path of [`/v1/posts/${id}/retry`, `/v1/publish/${id}/retry`]) {
      const res = await request(system.gateway).post(path).set('Authorization', other);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const post = await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', auth);
    expect(post.body.status).toBe('partial');
  });
});
