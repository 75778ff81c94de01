import { postFailed, postPublished, postsQueued, type Envelope } from '@svc/contracts';
import { waitFor } from '@svc/testing';
import request from 'supertest';
import { tapMessages } from '../support/message-tap.ts';
import { oauthRoundTrip } from '../support/oauth-round-trip.ts';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import {
  connectAccount,
  NETWORKS,
  validBody,
  waitForFinal,
  type Network,
  type PostBody,
} from './publishing-support.ts';

interface PostEvent {
  id: string;
  job_id: string;
  status: string;
  account_ids: string[];
  platforms: string[];
  text: string;
  error_message: string | null;
  results: { account_id: string; provider: string; status: string; platform_post_id: string | null }[];
}

describe('publishing: delivery', () => {
  let system: SystemHarness;
  let auth: string;
  const accounts = {} as Record<Network, string>;
  const events: Envelope<PostEvent>[] = [];

  const publish = (body: unknown) =>
    request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .send(body as object);
  const eventsOf = (jobId: string) => events.filter((event) => event.payload.job_id === jobId);
  const waitForEvent = (jobId: string, type: string): Promise<Envelope<PostEvent>> =>
    waitFor(() => eventsOf(jobId).find((event) => event.type === type), { what: `${type} for ${jobId}` });
  /** The armed fault met the first attempt (the sandbox holds no fault any more). */
  const firstAttemptMade = () =>
    waitFor(async () => (await system.sandbox.pendingFaults()).length === 0, {
      what: 'the first attempt to meet the rate limit',
    });
  async function expectNothingOpen(post: PostBody): Promise<void> {
    expect(['published', 'partial', 'failed']).toContain(post.status);
    for (const result of post.results) expect(['published', 'failed']).toContain(result.status);
  }

  beforeAll(async () => {
    system = await startSystem({
      services: ['accounts', 'publisher'],
      env: {
        DELIVERY_BACKOFF_MS: '200,400',
        DELIVERY_MAX_ATTEMPTS: '3',
        DELIVERY_RECONCILE_DELAYS_MS: '200,200,200,200',
      },
    });
    const broker = system.workers.publisher!.runtime.broker;
    await broker.consume({
      queue: 'test.post-events',
      messages: [postsQueued, postPublished, postFailed],
      handlers: {
        // A carrier's events, each as it would have come alone (as the webhook dispatcher takes them).
        'publisher.posts_queued.v1': async (env) =>
          void events.push(
            ...env.payload.events.map((event) => ({ ...event, org_id: env.org_id }) as Envelope<PostEvent>),
          ),
        'post.published.v1': async (env) => void events.push(env as Envelope<PostEvent>),
        'post.failed.v1': async (env) => void events.push(env as Envelope<PostEvent>),
      },
    });
    auth = `Bearer ${await system.token()}`;
    for (const network of NETWORKS) accounts[network] = await connectAccount(system, auth, network);
  }, 60_000);

  afterAll(async () => system?.close());
  beforeEach(async () => system.sandbox.reset());

  it('fans one job out to all five networks and ends published, one post per network, announced', async () => {
    const body = validBody(
      system,
      NETWORKS.map((network) => accounts[network]),
    );
    const res = await publish(body);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job_id: expect.any(String), status: 'queued', scheduled_at: null });
    const post = await waitForFinal(system, auth, res.body.job_id);
    expect(post.results.map((result) => [result.provider, result.status, result.error_message])).toEqual(
      NETWORKS.map((network) => [network, 'published', null]),
    );
    expect(post.status).toBe('published');
    for (const result of post.results) expect(result.platform_post_id).toEqual(expect.any(String));
    for (const network of NETWORKS) {
      const posts = await system.sandbox.posts(network);
      expect(posts.filter((item) => item.text === body.text)).toHaveLength(1);
    }
    const queued = await waitForEvent(res.body.job_id, 'post.queued.v1');
    expect(queued.payload).toEqual(
      expect.objectContaining({
        id: res.body.job_id,
        status: 'queued',
        text: body.text,
        platforms: NETWORKS,
        account_ids: body.account_ids,
      }),
    );
    const published = await waitForEvent(res.body.job_id, 'post.published.v1');
    expect(published.org_id).toEqual(expect.any(String));
    expect(published.payload).toEqual(
      expect.objectContaining({
        id: res.body.job_id,
        job_id: res.body.job_id,
        status: 'published',
        error_message: null,
        platforms: NETWORKS,
      }),
    );
    expect(published.payload.results.map((result) => result.platform_post_id)).toEqual(
      post.results.map((result) => result.platform_post_id),
    );
    expect(eventsOf(res.body.job_id).filter((event) => event.type !== 'post.queued.v1')).toHaveLength(1);
  });

  it('ends partial when some targets fail, and announces it as post.published with error_message', async () => {
    await system.sandbox.fault('linkedin', 'duplicate', 1);
    const res = await publish({ account_ids: [accounts.x, accounts.linkedin], text: 'a mix of outcomes' });
    const post = await waitForFinal(system, auth, res.body.job_id);
    expect(post.status).toBe('partial');
    expect(post.results).toEqual([
      expect.objectContaining({ provider: 'x', status: 'published' }),
      expect.objectContaining({
        provider: 'linkedin',
        status: 'failed',
        error_code: 'duplicate',
        platform_post_id: null,
      }),
    ]);
    const event = await waitForEvent(res.body.job_id, 'post.published.v1');
    expect(event.payload.status).toBe('partial');
    expect(event.payload.error_message).toContain(accounts.linkedin);
  });

  it('ends failed when every target fails, announced as post.failed', async () => {
    // A revoked token fails its target too, and also the account: test/publishing/network-refusals.int.test.ts.
    await system.sandbox.fault('linkedin', 'duplicate', 1);
    const res = await publish({ account_ids: [accounts.linkedin], text: 'refused at delivery' });
    const post = await waitForFinal(system, auth, res.body.job_id);
    expect(post.status).toBe('failed');
    expect(post.results[0]).toEqual(
      expect.objectContaining({ status: 'failed', error_code: 'duplicate', attempts: 1 }),
    );
    const event = await waitForEvent(res.body.job_id, 'post.failed.v1');
    expect(event.payload.error_message).toEqual(expect.any(String));
  });

  describe('network faults end as the delivery rules say, nothing stuck in processing', () => {
    it.each<[string, Network, string, string | null, number]>([
      ['rate_limit', 'x', 'published', null, 2],
      ['server_error', 'x', 'published', null, 2],
      ['timeout', 'x', 'published', null, 2],
      ['token_expired', 'x', 'published', null, 1],
      ['duplicate', 'x', 'failed', 'duplicate', 1],
    ])('%s on %s', async (fault, network, status, errorCode, attempts) => {
      await system.sandbox.fault(network, fault, 1, fault === 'rate_limit' ? 1 : undefined);
      const text = `fault ${fault} ${Date.now()}`;
      const res = await publish({ account_ids: [accounts[network]], text });
      // The delay the publisher decided after the refusal, by the database's clock: the put-back sets
      // next_attempt_at and updated_at from the same now(), so their difference is the delay itself.
      const retryDelayMs =
        fault === 'rate_limit'
          ? await waitFor(
              async () => {
                const [row] = await system.workers.publisher!.runtime.db.$queryRawUnsafe<{ delay_ms: number }[]>(
                  `SELECT (EXTRACT(EPOCH FROM next_attempt_at - updated_at) * 1000)::float8 AS delay_ms
                     FROM deliveries WHERE job_id = $1::uuid AND status = 'pending' AND next_attempt_at IS NOT NULL`,
                  res.body.job_id,
                );
                return row?.delay_ms;
              },
              { what: 'the rate-limited delivery put back with its next attempt time' },
            )
          : undefined;
      const post = await waitForFinal(system, auth, res.body.job_id);
      await expectNothingOpen(post);
      expect(post.status).toBe(status);
      expect(post.results[0]).toEqual(expect.objectContaining({ status, error_code: errorCode, attempts }));
      expect((await system.sandbox.posts(network)).filter((item) => item.text === text)).toHaveLength(
        status === 'published' ? 1 : 0,
      );
      // The network's retry time (1 s) is honoured over the shorter configured backoff (200 ms).
      if (fault === 'rate_limit') expect(retryDelayMs).toBeGreaterThanOrEqual(1000);
    });

    it('gives up after DELIVERY_MAX_ATTEMPTS on persistent refusals', async () => {
      await system.sandbox.fault('x', 'rate_limit', 3, 0);
      const res = await publish({ account_ids: [accounts.x, accounts.linkedin], text: 'x keeps refusing' });
      const post = await waitForFinal(system, auth, res.body.job_id);
      await expectNothingOpen(post);
      expect(post.status).toBe('partial');
      expect(post.results[0]).toEqual(
        expect.objectContaining({ provider: 'x', status: 'failed', error_code: 'retries_exhausted', attempts: 3 }),
      );
    });

    it('never re-posts blindly when 5xx persist, reads included: outcome_unknown with the reason', async () => {
      // A 5xx after the create call was sent leaves the post's existence unknown; the four lookups
      // (DELIVERY_RECONCILE_DELAYS_MS) meet 5xx too: 1 + 4 faults.
      await system.sandbox.fault('x', 'server_error', 5);
      const text = `x keeps failing ${Date.now()}`;
      const res = await publish({ account_ids: [accounts.x, accounts.linkedin], text });
      const post = await waitForFinal(system, auth, res.body.job_id);
      await expectNothingOpen(post);
      expect(post.status).toBe('partial');
      expect(post.results[0]).toEqual(
        expect.objectContaining({ provider: 'x', status: 'failed', error_code: 'outcome_unknown', attempts: 1 }),
      );
      expect(post.results[0]!.error_message).toContain('lookup failed');
      expect((await system.sandbox.posts('x')).filter((item) => item.text === text)).toHaveLength(0);
    });
  });

  it('fails a target whose account was deleted after acceptance; the others go on', async () => {
    const doomed = await connectAccount(system, auth, 'x');
    // The first attempt meets a rate limit (retry in 2 s); the account is deleted meanwhile.
    await system.sandbox.fault('x', 'rate_limit', 1, 2);
    const res = await publish({ account_ids: [doomed, accounts.linkedin], text: 'account deleted meanwhile' });
    await firstAttemptMade();
    expect((await request(system.gateway).delete(`/v1/accounts/${doomed}`).set('Authorization', auth)).status).toBe(
      204,
    );
    const post = await waitForFinal(system, auth, res.body.job_id);
    expect(post.status).toBe('partial');
    expect(post.results[0]).toEqual(
      expect.objectContaining({ account_id: doomed, status: 'failed', error_code: 'account_deleted' }),
    );
    expect(post.results[0]!.error_message).toContain('deleted');
    expect(post.results[1]).toEqual(expect.objectContaining({ status: 'published' }));
  });

  it('fails a target whose account was revoked after acceptance with a clear error', async () => {
    const doomed = await connectAccount(system, auth, 'x');
    // The first attempt meets a rate limit (retry in 3 s); the account loses its connection meanwhile.
    await system.sandbox.fault('x', 'rate_limit', 1, 3);
    const res = await publish({ account_ids: [accounts.linkedin, doomed], text: 'account revoked meanwhile' });
    await firstAttemptMade();
    await system.sandbox.fault('x', 'token_revoked', 1);
    expect(
      (await request(system.gateway).post(`/v1/accounts/${doomed}/refresh`).set('Authorization', auth)).status,
    ).toBe(409);
    const post = await waitForFinal(system, auth, res.body.job_id);
    expect(post.status).toBe('partial');
    expect(post.results[1]).toEqual(
      expect.objectContaining({ account_id: doomed, status: 'failed', error_code: 'account_unusable' }),
    );
    expect(post.results[1]!.error_message).toContain('reconnect');
  });

  describe('a forced token refresh that fails during delivery', () => {
    // The post call answers 401 (expired); the publisher forces a refresh, which the network refuses
    // too. A BYOK token has nothing to refresh with, so its "refresh" is the profile read that proves
    // it still works; an OAuth account spends its refresh token at the token endpoint.
    // X refuses a spent refresh token the way it refuses a revoked grant (invalid_request), which
    // accounts records as `revoked`; a refused re-validation is an expired token, `requires_reconnect`.
    // Either one is a connection to reconnect: both are announced, and accept refuses both.
    it.each<[string, string[], (auth: string) => Promise<string>]>([
      ['a BYOK token, re-validated', ['requires_reconnect'], (owner) => connectAccount(system, owner, 'x')],
      [
        'an OAuth token, refreshed with its refresh token',
        ['requires_reconnect', 'revoked'],
        async (owner) => {
          const res = await oauthRoundTrip(system.gateway, owner, 'x');
          expect(res.status).toBe(200);
          return (res.body as { account_id: string }).account_id;
        },
      ],
    ])(
      'on %s: the account needs reconnecting, connection.revoked is emitted, the target fails account_unusable',
      async (_name, healths, connect) => {
        const tap = await tapMessages(system.namespace, ['connection.revoked.v1']);
        try {
          const doomed = await connect(auth);
          await system.sandbox.fault('x', 'token_expired', 2);
          const text = `refresh refused ${Date.now()}`;
          const res = await publish({ account_ids: [doomed], text });
          expect(res.status).toBe(202);
          const post = await waitForFinal(system, auth, res.body.job_id);
          // Both faults went to this delivery's two calls: the post and the refresh.
          expect(await system.sandbox.pendingFaults()).toEqual([]);
          expect(post.status).toBe('failed');
          expect(post.results).toEqual([
            expect.objectContaining({
              account_id: doomed,
              status: 'failed',
              error_code: 'account_unusable',
              platform_post_id: null,
              attempts: 1,
            }),
          ]);
          expect(post.results[0]!.error_message).toContain('reconnect');
          expect((await system.sandbox.posts('x')).filter((item) => item.text === text)).toHaveLength(0);
          expect((await waitForEvent(res.body.job_id, 'post.failed.v1')).payload.status).toBe('failed');
          const [revoked] = (
            await tap.until((seen) => seen.some((event) => event.payload.account_id === doomed))
          ).filter((event) => event.payload.account_id === doomed);
          expect(revoked!.payload).toEqual(expect.objectContaining({ account_id: doomed, provider: 'x' }));
          expect(healths).toContain(revoked!.payload.health);
          const listed = (
            await request(system.gateway).get('/v1/accounts').query({ limit: 100 }).set('Authorization', auth)
          ).body.items as { id: string; health: string }[];
          expect(listed.find((account) => account.id === doomed)?.health).toBe(revoked!.payload.health);
        } finally {
          await tap.close();
        }
      },
    );
  });

  it('counts stats from deliveries of this month', async () => {
    const res = await request(system.gateway).get('/v1/stats').set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(res.body.connected_networks).toBe(5);
    expect(res.body.total_networks).toBe(5);
    expect(res.body.queue_processing).toBe(0);
    expect(res.body.posts_this_month).toBeGreaterThanOrEqual(10);
    expect(res.body.success_rate).toBeGreaterThan(0);
    expect(res.body.success_rate).toBeLessThan(1);
  });
});
