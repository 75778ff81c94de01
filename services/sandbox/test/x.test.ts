import { createHash } from 'node:crypto';
import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';
import { JPEG, MP4 } from './support/media.ts';
import { addToTimeline, firstSince, type XTweet } from '../src/x/x-records.ts';

// Shapes from docs/networks.md §3 (X API v2): problem+json errors, rate-limit headers, PKCE, rotation.
describe('sandbox /x (X API v2)', () => {
  const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true, processingPolls: 1 });
  beforeEach(async () => void (await request(app).post('/__sandbox/reset').expect(204)));

  const verifier = 'v'.repeat(50);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const basic = `Basic ${Buffer.from('cid:secret').toString('base64')}`;

  async function tokens() {
    const authorize = await request(app).get('/x/i/oauth2/authorize').query({
      response_type: 'code',
      client_id: 'cid',
      redirect_uri: 'https://app.example.com/cb',
      scope: 'tweet.read tweet.write users.read media.write offline.access',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(authorize.status).toBe(302);
    const location = new URL(authorize.headers.location as string);
    expect(location.searchParams.get('state')).toBe('st');
    const token = await request(app)
      .post('/x/2/oauth2/token')
      .set('Authorization', basic)
      .type('form')
      .send({
        grant_type: 'authorization_code',
        code: location.searchParams.get('code'),
        redirect_uri: 'https://app.example.com/cb',
        code_verifier: verifier,
      });
    expect(token.status).toBe(200);
    expect(token.body).toEqual({
      token_type: 'bearer',
      expires_in: 7200,
      access_token: expect.any(String),
      scope: 'tweet.read tweet.write users.read media.write offline.access',
      refresh_token: expect.any(String),
    });
    return token.body as { access_token: string; refresh_token: string };
  }

  it('authorize needs a code_challenge; the token endpoint checks the verifier and answers RFC 6749 errors', async () => {
    const missing = await request(app)
      .get('/x/i/oauth2/authorize')
      .query({ response_type: 'code', client_id: 'cid', redirect_uri: 'https://a/cb', state: 's' });
    expect(missing.status).toBe(400);
    const authorize = await request(app).get('/x/i/oauth2/authorize').query({
      response_type: 'code',
      client_id: 'cid',
      redirect_uri: 'https://a/cb',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const code = new URL(authorize.headers.location as string).searchParams.get('code');
    const wrong = await request(app).post('/x/2/oauth2/token').type('form').send({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://a/cb',
      code_verifier: 'nope',
      client_id: 'cid',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'invalid_request',
      error_description: 'Value passed for the authorization code was invalid.',
    });
    const noClient = await request(app)
      .post('/x/2/oauth2/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: 'r' });
    expect(noClient.status).toBe(401);
  });

  it('refresh tokens are single use and rotate', async () => {
    const first = await tokens();
    const second = await request(app)
      .post('/x/2/oauth2/token')
      .set('Authorization', basic)
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const replay = await request(app)
      .post('/x/2/oauth2/token')
      .set('Authorization', basic)
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({
      error: 'invalid_request',
      error_description: 'Value passed for the token was invalid.',
    });
    const revoke = await request(app)
      .post('/x/2/oauth2/revoke')
      .type('form')
      .send({ token: second.body.access_token, client_id: 'cid' });
    expect(revoke.body).toEqual({ revoked: true });
  });

  it('POST /2/tweets: 201 with data.id and edit_history_tweet_ids, rate-limit and 24-hour headers', async () => {
    const { access_token: token } = await tokens();
    const created = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', `Bearer ${token}`)
      .send({ text: 'Hello world' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      data: {
        id: expect.stringMatching(/^\d{19}$/),
        text: 'Hello world',
        edit_history_tweet_ids: [created.body.data.id],
      },
    });
    expect(created.headers['x-rate-limit-limit']).toBe('100');
    expect(created.headers['x-rate-limit-remaining']).toBe('99');
    expect(Number(created.headers['x-rate-limit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect(created.headers['x-user-limit-24hour-remaining']).toBeDefined();
    expect(created.headers['x-app-limit-24hour-limit']).toBe('10000');
    const duplicate = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', `Bearer ${token}`)
      .send({ text: 'Hello world' });
    expect(duplicate.status).toBe(403);
    expect(duplicate.body).toEqual({
      detail: 'You are not allowed to create a Tweet with duplicate content.',
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
    });
    const unauthorized = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', 'Bearer invalid_x')
      .send({ text: 'x' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toEqual({
      title: 'Unauthorized',
      type: 'about:blank',
      status: 401,
      detail: 'Unauthorized',
    });
    const tooMany = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', `Bearer ${token}`)
      .send({ text: 'x', media: { media_ids: ['1', '2', '3', '4', '5'] } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual(
      expect.objectContaining({
        title: 'Invalid Request',
        type: 'https://api.x.com/2/problems/invalid-request',
        errors: [expect.objectContaining({ message: expect.stringContaining('maximum of 4') })],
      }),
    );
  });

  it("makes post ids as X does (Snowflake): the time since X's epoch in the high bits, so later posts have larger ids", async () => {
    const { access_token: token } = await tokens();
    const before = Date.now();
    const ids: bigint[] = [];
    for (let n = 0; n < 20; n += 1) {
      const created = await request(app)
        .post('/x/2/tweets')
        .set('Authorization', `Bearer ${token}`)
        .send({ text: `ordered ${n}` });
      ids.push(BigInt(created.body.data.id as string));
    }
    for (let n = 1; n < ids.length; n += 1) expect(ids[n]! > ids[n - 1]!).toBe(true);
    const madeAt = Number((ids[0]! >> 22n) + 1_288_834_974_657n);
    expect(madeAt).toBeGreaterThanOrEqual(before);
    expect(madeAt).toBeLessThanOrEqual(Date.now());
  });

  it("user timeline: newest first in pages of max_results, start_time inclusive, only the user's own posts", async () => {
    const mine = 'Bearer byok-timeline-mine';
    const theirs = 'Bearer byok-timeline-theirs';
    const ids: string[] = [];
    for (let n = 0; n < 12; n += 1) {
      ids.push(
        (
          await request(app)
            .post('/x/2/tweets')
            .set('Authorization', mine)
            .send({ text: `timeline ${n}` })
        ).body.data.id as string,
      );
      if (n % 5 === 0)
        await request(app)
          .post('/x/2/tweets')
          .set('Authorization', theirs)
          .send({ text: `other ${n}` });
    }
    const me = (await request(app).get('/x/2/users/me').set('Authorization', mine)).body.data.id as string;
    const page = (query: Record<string, string>) =>
      request(app)
        .get(`/x/2/users/${me}/tweets`)
        .set('Authorization', mine)
        .query({ max_results: '5', 'tweet.fields': 'created_at', ...query });
    const seen: { id: string; created_at: string }[] = [];
    let token: string | undefined;
    do {
      const body = (await page(token === undefined ? {} : { pagination_token: token })).body as {
        data: { id: string; created_at: string }[];
        meta: { result_count: number; next_token?: string };
      };
      expect(body.meta.result_count).toBe(body.data.length);
      seen.push(...body.data);
      token = body.meta.next_token;
    } while (token !== undefined);
    expect(seen.map((tweet) => tweet.id)).toEqual([...ids].reverse());

    const since = seen[3]!.created_at;
    const expected = seen.filter((tweet) => tweet.created_at >= since).map((tweet) => tweet.id);
    const bounded = (await page({ start_time: since, max_results: '100' })).body as {
      data: { id: string }[];
      meta: { next_token?: string };
    };
    expect(bounded.data.map((tweet) => tweet.id)).toEqual(expected);
    expect(bounded.meta.next_token).toBeUndefined();
    const none = (await page({ start_time: new Date(Date.now() + 60_000).toISOString() })).body as {
      data?: unknown;
      meta: { result_count: number };
    };
    expect(none).toEqual({ meta: { result_count: 0 } });
  });

  it('keeps a timeline in creation order when the clock goes back', () => {
    const timelines = new Map<string, XTweet[]>();
    const tweet = (id: string, createdAt: string): XTweet => ({ id, userId: 'u', text: id, mediaIds: [], createdAt });
    for (const item of [
      tweet('1000000000000000002', '2030-01-01T00:00:02.000Z'),
      tweet('1000000000000000003', '2030-01-01T00:00:01.000Z'),
      tweet('1000000000000000001', '2030-01-01T00:00:02.000Z'),
    ])
      addToTimeline(timelines, item);
    expect(timelines.get('u')!.map((item) => item.id)).toEqual([
      '1000000000000000003',
      '1000000000000000001',
      '1000000000000000002',
    ]);
    expect(firstSince(timelines.get('u')!, Date.parse('2030-01-01T00:00:01.500Z'))).toBe(1);
  });

  it('refuses an upload whose media_type X does not take, or that its category cannot hold', async () => {
    const auth = 'Bearer byok-x-media-types';
    const init = (media_type: string, media_category: string) =>
      request(app)
        .post('/x/2/media/upload/initialize')
        .set('Authorization', auth)
        .send({ media_type, total_bytes: 10, media_category });
    expect((await init('application/pdf', 'tweet_image')).status).toBe(400);
    expect((await init('video/mp4', 'tweet_image')).status).toBe(400);
    expect((await init('image/png', 'tweet_gif')).status).toBe(400);
    expect((await init('image/png', 'tweet_image')).status).toBe(200);
  });

  it('chunked media upload: initialize/append/finalize, video processing_info then succeeded', async () => {
    const token = 'byok-x-user';
    const auth = `Bearer ${token}`;
    const init = await request(app)
      .post('/x/2/media/upload/initialize')
      .set('Authorization', auth)
      .send({ media_type: 'video/mp4', total_bytes: MP4.length, media_category: 'tweet_video' });
    expect(init.body).toEqual({
      data: {
        id: expect.stringMatching(/^\d+$/),
        media_key: `13_${init.body.data.id}`,
        expires_after_secs: expect.any(Number),
      },
    });
    const id = init.body.data.id as string;
    const append = await request(app)
      .post(`/x/2/media/upload/${id}/append`)
      .set('Authorization', auth)
      .field('segment_index', '0')
      .attach('media', MP4, 'blob');
    expect(append.body.data.expires_at).toEqual(expect.any(Number));
    const finalize = await request(app).post(`/x/2/media/upload/${id}/finalize`).set('Authorization', auth);
    expect(finalize.body.data).toEqual(
      expect.objectContaining({ id, size: MP4.length, processing_info: { state: 'pending', check_after_secs: 1 } }),
    );
    const early = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', auth)
      .send({ text: 'v', media: { media_ids: [id] } });
    expect(early.status).toBe(400);
    const first = await request(app)
      .get('/x/2/media/upload')
      .query({ command: 'STATUS', media_id: id })
      .set('Authorization', auth);
    expect(first.body.data.processing_info.state).toBe('in_progress');
    const second = await request(app)
      .get('/x/2/media/upload')
      .query({ command: 'STATUS', media_id: id })
      .set('Authorization', auth);
    expect(second.body.data.processing_info.state).toBe('succeeded');
    const posted = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', auth)
      .send({ text: 'v', media: { media_ids: [id] } });
    expect(posted.status).toBe(201);

    const image = await request(app)
      .post('/x/2/media/upload')
      .set('Authorization', auth)
      .field('media_category', 'tweet_image')
      .attach('media', JPEG, 'blob');
    expect(image.body.data).toEqual({
      id: expect.any(String),
      media_key: `3_${image.body.data.id}`,
      size: JPEG.length,
      expires_after_secs: 86400,
    });
  });

  it('lookup with public_metrics; a missing post answers 200 with errors[]', async () => {
    const auth = 'Bearer byok-metrics';
    const created = await request(app).post('/x/2/tweets').set('Authorization', auth).send({ text: 'm' });
    await request(app)
      .post('/__sandbox/metrics')
      .send({ network: 'x', post_id: created.body.data.id, metrics: { like_count: 7 } });
    const lookup = await request(app)
      .get(`/x/2/tweets/${created.body.data.id}`)
      .query({ 'tweet.fields': 'public_metrics' })
      .set('Authorization', auth);
    expect(lookup.body.data.public_metrics).toEqual({
      retweet_count: 0,
      reply_count: 0,
      like_count: 7,
      quote_count: 0,
      bookmark_count: 0,
      impression_count: 0,
    });
    const missing = await request(app).get('/x/2/tweets/123').set('Authorization', auth);
    expect(missing.status).toBe(200);
    expect(missing.body.errors[0]).toEqual(
      expect.objectContaining({ title: 'Not Found Error', type: 'https://api.x.com/2/problems/resource-not-found' }),
    );
  });

  it('counts text as X does (twitter-text): bare domains are URLs; Premium subscribers post long text', async () => {
    const standard = 'Bearer byok-standard';
    // 250 letters and three bare domains weigh 250 + 3 * 24 = 322: over 280, though only 265 characters.
    const domains = await request(app)
      .post('/x/2/tweets')
      .set('Authorization', standard)
      .send({ text: `${'a'.repeat(250)} a.co b.co c.co` });
    expect(domains.status).toBe(403);
    expect(domains.body.detail).toBe('You are not permitted to perform this action.');
    expect(
      (
        await request(app)
          .post('/x/2/tweets')
          .set('Authorization', standard)
          .send({ text: 'b'.repeat(1000) })
      ).status,
    ).toBe(403);
    const premium = 'Bearer premium_byok';
    const me = await request(app)
      .get('/x/2/users/me')
      .query({ 'user.fields': 'username,subscription_type' })
      .set('Authorization', premium);
    expect(me.body.data.subscription_type).toBe('Premium');
    expect(
      (await request(app).get('/x/2/users/me').set('Authorization', standard)).body.data.subscription_type,
    ).toBeUndefined();
    expect(
      (
        await request(app)
          .post('/x/2/tweets')
          .set('Authorization', premium)
          .send({ text: 'b'.repeat(1000) })
      ).status,
    ).toBe(201);
  });

  it('faults: 429 with x-rate-limit-reset, 503, 401, 403 duplicate', async () => {
    const auth = 'Bearer byok-faults';
    await request(app).post('/__sandbox/faults').send({ network: 'x', fault: 'rate_limit', retry_after_seconds: 30 });
    const limited = await request(app).post('/x/2/tweets').set('Authorization', auth).send({ text: 'a' });
    expect(limited.status).toBe(429);
    expect(limited.headers['x-rate-limit-remaining']).toBe('0');
    expect(Number(limited.headers['x-rate-limit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 29);
    expect(limited.body).toEqual({
      title: 'Too Many Requests',
      detail: 'Too Many Requests',
      type: 'about:blank',
      status: 429,
    });
    await request(app).post('/__sandbox/faults').send({ network: 'x', fault: 'server_error' });
    expect((await request(app).post('/x/2/tweets').set('Authorization', auth).send({ text: 'a' })).status).toBe(503);
    await request(app).post('/__sandbox/faults').send({ network: 'x', fault: 'token_expired' });
    expect((await request(app).get('/x/2/users/me').set('Authorization', auth)).status).toBe(401);
    await request(app).post('/__sandbox/faults').send({ network: 'x', fault: 'duplicate' });
    expect(
      (await request(app).post('/x/2/tweets').set('Authorization', auth).send({ text: 'b' })).body.detail,
    ).toContain('duplicate content');
  });
});
