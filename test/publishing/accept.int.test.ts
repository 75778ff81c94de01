import { publisherJobCreate } from '@svc/contracts';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, validBody, waitForFinal, waitForReplica } from './publishing-support.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('publishing: accepting jobs and posts', () => {
  let system: SystemHarness;
  let auth: string;
  let otherAuth: string;
  let ig: string;
  let x: string;
  let tiktok: string;
  let linkedin: string;
  let foreign: string;

  const publish = (body: unknown, headers: Record<string, string> = {}) =>
    request(system.gateway)
      .post('/v1/publish')
      .set('Authorization', auth)
      .set(headers)
      .send(body as object);
  const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

  function expectRule(res: request.Response, path: string, rule: string): void {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path, rule })]));
  }

  beforeAll(async () => {
    // One organization connects 101 accounts to try the account_ids limit: past the free plan's 25.
    system = await startSystem({
      services: ['accounts', 'publisher', 'scheduler'],
      env: { PLAN_FREE_CONNECTED_ACCOUNTS: '200' },
    });
    auth = `Bearer ${await system.token()}`;
    otherAuth = `Bearer ${await system.token()}`;
    ig = await connectAccount(system, auth, 'instagram');
    x = await connectAccount(system, auth, 'x');
    tiktok = await connectAccount(system, auth, 'tiktok');
    linkedin = await connectAccount(system, auth, 'linkedin');
    foreign = await connectAccount(system, otherAuth, 'x');
  }, 60_000);

  afterAll(async () => system?.close());

  describe('validation (400)', () => {
    it('requires a credential', async () => {
      const res = await request(system.gateway)
        .post('/v1/publish')
        .send({ account_ids: [x], text: 'hi' });
      expect(res.status).toBe(401);
    });

    it.each([
      ['no account ids', { account_ids: [], text: 'hi' }, '/body/account_ids'],
      [
        'more than 100 account ids',
        { account_ids: Array.from({ length: 101 }, (_, i) => `a${i}`), text: 'hi' },
        '/body/account_ids',
      ],
      ['empty text', { text: '' }, '/body/text'],
      ['text over 5000 characters', { text: 'a'.repeat(5001) }, '/body/text'],
      ['missing text', { text: undefined }, '/body/text'],
      ['an unknown field', { colour: 'red' }, '/body/colour'],
      ['a media URL that is not http(s)', { media_urls: ['ftp://example.com/a.jpg'] }, '/body/media_urls/0'],
      ['options for an unknown network', { provider_options: { myspace: {} } }, '/body/provider_options/myspace'],
    ])('rejects %s', async (_name, patch, path) => {
      const res = await publish({ account_ids: [x], text: 'hi', ...patch });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    });

    it('names unknown and foreign account ids', async () => {
      const res = await publish({ account_ids: [x, UNKNOWN_ID, foreign], text: 'hi' });
      expectRule(res, '/body/account_ids/1', 'unknown_account');
      expectRule(res, '/body/account_ids/2', 'unknown_account');
      expect(res.body.error.details.some((detail: { path: string }) => detail.path === '/body/account_ids/0')).toBe(
        false,
      );
    });

    it('rejects text-only posts to Instagram and TikTok, naming each account and rule', async () => {
      const res = await publish({
        account_ids: [x, ig, tiktok],
        text: 'text only',
        provider_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
      });
      expectRule(res, '/body/account_ids/1', 'media_required');
      expectRule(res, '/body/account_ids/2', 'media_required');
      const detail = res.body.error.details.find((item: { path: string }) => item.path === '/body/account_ids/1');
      expect(detail).toEqual(expect.objectContaining({ account_id: ig, provider: 'instagram' }));
      expect(detail.message).toContain(ig);
    });

    it('requires TikTok privacy_level and checks its value', async () => {
      const media = [system.media.url('/video.mp4')];
      expectRule(
        await publish({ account_ids: [tiktok], text: 'hi', media_urls: media }),
        '/body/account_ids/0',
        'privacy_level_required',
      );
      expectRule(
        await publish({
          account_ids: [tiktok],
          text: 'hi',
          media_urls: media,
          provider_options: { tiktok: { privacy_level: 'EVERYONE!' } },
        }),
        '/body/account_ids/0',
        'privacy_level',
      );
    });

    it('rejects over-long text for X but not for LinkedIn', async () => {
      const res = await publish({ account_ids: [linkedin, x], text: 'a'.repeat(300) });
      expectRule(res, '/body/account_ids/1', 'text_length');
      expect(res.body.error.details).toHaveLength(1);
    });

    it('holds each X account to its own limit: a Premium account (subscription_type at connect) may post long text', async () => {
      const premium = await connectAccount(system, auth, 'x', `premium_${Date.now()}`);
      const res = await publish({ account_ids: [premium, x], text: 'a'.repeat(1000) });
      expectRule(res, '/body/account_ids/1', 'text_length');
      expect(res.body.error.details).toHaveLength(1);
      expect((await publish({ account_ids: [premium], text: 'a'.repeat(1000) })).status).toBe(202);
    });

    it('checks TikTok posts against the creator_info kept at connect: offered privacy levels and interactions the creator turned off', async () => {
      const creator = await connectAccount(system, auth, 'tiktok', `private_${Date.now()}`);
      const media = [system.media.url('/video.mp4')];
      const res = await publish({
        account_ids: [creator],
        text: 'hi',
        media_urls: media,
        provider_options: { tiktok: { privacy_level: 'PUBLIC_TO_EVERYONE', disable_comment: false } },
      });
      expectRule(res, '/body/account_ids/0', 'privacy_level_option_mismatch');
      expectRule(res, '/body/account_ids/0', 'comment_disabled');
      expect(
        (
          await publish({
            account_ids: [creator],
            text: 'hi',
            media_urls: media,
            provider_options: { tiktok: { privacy_level: 'FOLLOWER_OF_CREATOR' } },
          })
        ).status,
      ).toBe(202);
    });

    it('rejects too many images and mixed media for X', async () => {
      const images = Array.from({ length: 5 }, (_, i) => system.media.url(`/image.jpg?n=${i}`));
      expectRule(
        await publish({ account_ids: [x], text: 'hi', media_urls: images }),
        '/body/account_ids/0',
        'media_count',
      );
      expectRule(
        await publish({
          account_ids: [x],
          text: 'hi',
          media_urls: [system.media.url('/image.jpg'), system.media.url('/video.mp4')],
        }),
        '/body/account_ids/0',
        'media_mix',
      );
    });

    it('rejects media on link-local / metadata addresses', async () => {
      expectRule(
        await publish({ account_ids: [x], text: 'hi', media_urls: ['http://169.254.169.254/latest/meta-data.jpg'] }),
        '/body/media_urls/0',
        'media_url',
      );
    });

    it('checks scheduled_at: timezone, future, at least 60 s ahead', async () => {
      const naive = await publish({ account_ids: [x], text: 'hi', scheduled_at: '2099-01-01T10:00:00' });
      expect(naive.status).toBe(400);
      expect(naive.body.error.details).toEqual([expect.objectContaining({ path: '/body/scheduled_at' })]);
      expectRule(
        await publish({ account_ids: [x], text: 'hi', scheduled_at: inSeconds(-60) }),
        '/body/scheduled_at',
        'scheduled_at_lead',
      );
      expectRule(
        await publish({ account_ids: [x], text: 'hi', scheduled_at: inSeconds(30) }),
        '/body/scheduled_at',
        'scheduled_at_lead',
      );
      const ok = await publish({ account_ids: [x], text: 'hi', scheduled_at: inSeconds(120) });
      expect(ok.status).toBe(202);
      expect(ok.body).toEqual({ job_id: expect.any(String), status: 'scheduled', scheduled_at: expect.any(String) });
    });

    it('accepts scheduled_at in any timezone and answers the same instant', async () => {
      // 10 minutes ahead, written as local time two hours east of UTC.
      const at = new Date(Math.floor((Date.now() + 600_000) / 1000) * 1000);
      const local = new Date(at.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      const res = await publish({ account_ids: [x], text: 'offset', scheduled_at: local });
      expect(res.status).toBe(202);
      expect(Date.parse(res.body.scheduled_at)).toBe(at.getTime());
    });

    it('answers 400 for malformed JSON and 413 for a body over 1 MiB on the publish route, with the error body', async () => {
      const malformed = await request(system.gateway)
        .post('/v1/publish')
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .send('{"account_ids": [');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error).toMatchObject({ code: 'validation_error', request_id: expect.any(String) });
      const huge = await request(system.gateway)
        .post('/v1/publish')
        .set('Authorization', auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ account_ids: [x], text: 'x'.repeat(1_048_600) }));
      expect(huge.status).toBe(413);
      expect(huge.body.error.code).toBe('payload_too_large');
    });

    it('answers 401 unauthorized with a request id on every publishing route without a credential', async () => {
      for (const call of [
        request(system.gateway).get('/v1/publish'),
        request(system.gateway).post(`/v1/publish/${UNKNOWN_ID}/cancel`),
        request(system.gateway).get(`/v1/posts/${UNKNOWN_ID}`),
      ]) {
        const res = await call;
        expect(res.status).toBe(401);
        expect(res.body.error).toMatchObject({ code: 'unauthorized', request_id: expect.any(String) });
      }
    });

    it('rejects accounts that need reconnecting', async () => {
      const revoked = await connectAccount(system, auth, 'linkedin');
      await system.sandbox.fault('linkedin', 'token_revoked', 1);
      const refresh = await request(system.gateway).post(`/v1/accounts/${revoked}/refresh`).set('Authorization', auth);
      expect(refresh.status).toBe(409);
      // Accept reads the publisher's replica of accounts, which follows accounts a moment behind.
      await waitForReplica(system, revoked, (row) => row?.health === 'revoked' || row?.health === 'requires_reconnect');
      const res = await publish({ account_ids: [x, revoked], text: 'hi' });
      expectRule(res, '/body/account_ids/1', 'account_unusable');
      await system.sandbox.reset();
    });

    it('rejects unknown media ids on /v1/posts and names platform_options on posts', async () => {
      const res = await request(system.gateway)
        .post('/v1/posts')
        .set('Authorization', auth)
        .send({ account_ids: [x], text: 'hi', media_ids: ['m_1'] });
      expectRule(res, '/body/media_ids/0', 'unknown_media');
      const tt = await request(system.gateway)
        .post('/v1/posts')
        .set('Authorization', auth)
        .send({
          account_ids: [tiktok],
          text: 'hi',
          media_urls: [system.media.url('/video.mp4')],
          platform_options: { tiktok: {} },
        });
      expectRule(tt, '/body/account_ids/0', 'privacy_level_required');
    });
  });

  describe('accept (202)', () => {
    it('answers 202 queued for /v1/publish and a post with results for /v1/posts; both read back as the same record', async () => {
      const job = await publish(validBody(system, [x, ig]));
      expect(job.status).toBe(202);
      expect(job.body.status).toBe('queued');
      const post = await request(system.gateway)
        .post('/v1/posts')
        .set('Authorization', auth)
        .send({ account_ids: [x], text: 'post body', platform_options: { x: {} } });
      expect(post.status).toBe(202);
      expect(post.body).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          status: 'queued',
          account_ids: [x],
          providers: ['x'],
          scheduled_at: null,
        }),
      );
      expect(post.body.results).toEqual([
        expect.objectContaining({ account_id: x, provider: 'x', status: 'pending', attempts: 0 }),
      ]);
      const done = await waitForFinal(system, auth, job.body.job_id);
      expect(done.id).toBe(job.body.job_id);
      expect(done.status).toBe('published');
      expect(done.results).toEqual([
        expect.objectContaining({
          account_id: x,
          provider: 'x',
          status: 'published',
          attempts: 1,
          platform_post_url: expect.any(String),
          published_at: expect.any(String),
        }),
        expect.objectContaining({ account_id: ig, provider: 'instagram', status: 'published', attempts: 1 }),
      ]);
    });

    it("makes job and delivery ids in the order it accepts them (UUID version 7), so the history's indexes take new rows on their right edge", async () => {
      const first = await publish(validBody(system, [x, linkedin]));
      const second = await publish(validBody(system, [x, linkedin]));
      expect([first.status, second.status]).toEqual([202, 202]);
      const db = system.workers.publisher!.runtime.db;
      const rows = await db.$queryRawUnsafe<{ job: string; delivery: string }[]>(
        'SELECT job_id::text AS job, id::text AS delivery FROM deliveries WHERE job_id = ANY($1::uuid[]) ORDER BY job_id, position',
        [first.body.job_id, second.body.job_id],
      );
      const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
      expect(rows.map((row) => row.job)).toEqual([
        first.body.job_id,
        first.body.job_id,
        second.body.job_id,
        second.body.job_id,
      ]);
      for (const id of [...rows.map((row) => row.job), ...rows.map((row) => row.delivery)]) expect(id).toMatch(v7);
      // In position order within a job, and every delivery of the second job after the first's.
      const deliveries = rows.map((row) => row.delivery);
      expect([...deliveries].sort()).toEqual(deliveries);
      await waitForFinal(system, auth, second.body.job_id);
    });

    it('accepts the limits themselves: text of exactly 5000 characters (to Facebook, which allows it)', async () => {
      // In the other organization: this one's connected networks are counted by the stats test.
      const page = await connectAccount(system, otherAuth, 'facebook');
      const text = `${'é'.repeat(4990)}${'a'.repeat(10)}`;
      const res = await request(system.gateway)
        .post('/v1/publish')
        .set('Authorization', otherAuth)
        .send({ account_ids: [page], text });
      expect(res.status).toBe(202);
      expect((await waitForFinal(system, otherAuth, res.body.job_id)).status).toBe('published');
      // The whole text reached the network.
      expect((await system.sandbox.posts('facebook')).filter((post) => post.text === text)).toHaveLength(1);
    });

    it('accepts an API key as well as a dashboard JWT', async () => {
      const key = await system.apiKey(await decodeOrg(auth));
      const res = await request(system.gateway)
        .post('/v1/publish')
        .set('Authorization', `Bearer ${key}`)
        .send({ account_ids: [x], text: 'with an api key' });
      expect(res.status).toBe(202);
      const list = await request(system.gateway)
        .get('/v1/posts')
        .query({ limit: 1 })
        .set('Authorization', `Bearer ${key}`);
      expect(list.status).toBe(200);
      expect(list.body.items[0].id).toBe(res.body.job_id);
    });

    it('accepts exactly 100 account ids and delivers to each; 101 connected accounts are refused whole', async () => {
      // A fresh organization, so the other tests' counts stay as they are. Distinct accounts: the
      // list must not repeat an id, and unknown ids would be refused for another reason.
      const org = `Bearer ${await system.token()}`;
      const many: string[] = [];
      for (let batch = 0; batch < 101; batch += 10) {
        many.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(10, 101 - batch) }, () => connectAccount(system, org, 'x')),
          )),
        );
      }
      const over = await request(system.gateway)
        .post('/v1/publish')
        .set('Authorization', org)
        .send({ account_ids: many, text: 'one hundred and one' });
      expect(over.status).toBe(400);
      expect(over.body).toEqual({
        error: {
          code: 'validation_error',
          message: expect.any(String),
          details: [expect.objectContaining({ path: '/body/account_ids' })],
          request_id: over.headers['x-request-id'],
        },
      });
      const hundred = many.slice(0, 100);
      const text = `to one hundred accounts ${Date.now()}`;
      const res = await request(system.gateway)
        .post('/v1/publish')
        .set('Authorization', org)
        .send({ account_ids: hundred, text });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ job_id: expect.any(String), status: 'queued', scheduled_at: null });
      const post = await waitForFinal(system, org, res.body.job_id, 60_000);
      expect(post.status).toBe('published');
      expect(post.results.map((result) => [result.account_id, result.status])).toEqual(
        hundred.map((id) => [id, 'published']),
      );
      expect((await system.sandbox.posts('x')).filter((item) => item.text === text)).toHaveLength(100);
      // The refused request created nothing: this organization has the one job.
      expect((await request(system.gateway).get('/v1/publish').set('Authorization', org)).body.total).toBe(1);
    }, 120_000);

    it('hides jobs of other organizations (404)', async () => {
      const job = await publish({ account_ids: [x], text: 'mine' });
      const other = await request(system.gateway).get(`/v1/posts/${job.body.job_id}`).set('Authorization', otherAuth);
      expect(other.status).toBe(404);
      expect((await request(system.gateway).get(`/v1/posts/${UNKNOWN_ID}`).set('Authorization', auth)).status).toBe(
        404,
      );
      expect((await request(system.gateway).get('/v1/posts/not-a-uuid').set('Authorization', auth)).status).toBe(404);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body', async () => {
      const body = { account_ids: [x], text: 'idempotent once' };
      const first = await publish(body, { 'Idempotency-Key': 'key-1' });
      const again = await publish(body, { 'Idempotency-Key': 'key-1' });
      expect(first.status).toBe(202);
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      await waitForFinal(system, auth, first.body.job_id);
      const posts = await system.sandbox.posts('x');
      expect(posts.filter((item) => item.text === 'idempotent once')).toHaveLength(1);
    });

    it('answers 422 idempotency_conflict for the same key with another body or endpoint', async () => {
      await publish({ account_ids: [x], text: 'first body' }, { 'Idempotency-Key': 'key-2' });
      const res = await publish({ account_ids: [x], text: 'second body' }, { 'Idempotency-Key': 'key-2' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('idempotency_conflict');
      const post = await request(system.gateway)
        .post('/v1/posts')
        .set('Authorization', auth)
        .set('Idempotency-Key', 'key-2')
        .send({ account_ids: [x], text: 'first body' });
      expect(post.status).toBe(422);
    });

    it('scopes keys per organization', async () => {
      const mine = await publish({ account_ids: [x], text: 'org scoped' }, { 'Idempotency-Key': 'key-3' });
      const theirs = await request(system.gateway)
        .post('/v1/publish')
        .set('Authorization', otherAuth)
        .set('Idempotency-Key', 'key-3')
        .send({ account_ids: [foreign], text: 'org scoped' });
      expect(theirs.status).toBe(202);
      expect(theirs.body.job_id).not.toBe(mine.body.job_id);
    });

    it('never runs concurrent duplicates twice', async () => {
      const body = { account_ids: [x], text: 'concurrent duplicate' };
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => publish(body, { 'Idempotency-Key': 'key-4' })),
      );
      const accepted = responses.filter((res) => res.status === 202);
      expect(
        responses.every((res) => res.status === 202 || (res.status === 409 && res.body.error.code === 'conflict')),
      ).toBe(true);
      expect(new Set(accepted.map((res) => res.body.job_id)).size).toBe(1);
      const replay = await publish(body, { 'Idempotency-Key': 'key-4' });
      expect(replay.body.job_id).toBe(accepted[0]!.body.job_id);
    });

    it('returns the job already created under an idempotent job id instead of creating another', async () => {
      // What the gateway sends on the retry of a request whose answer was lost (see IdempotencyStore).
      const broker = system.workers.publisher!.runtime.broker;
      const orgId = await decodeOrg(auth);
      const jobId = '4f3c2b1a-0000-8000-8000-00000000abcd';
      const payload = { job_id: jobId, account_ids: [x], text: 'answer lost once' };
      const [first, second] = await Promise.all([
        broker.rpc(publisherJobCreate, payload, { orgId, requestId: 'r1' }),
        broker.rpc(publisherJobCreate, payload, { orgId, requestId: 'r2' }),
      ]);
      expect(first.id).toBe(jobId);
      expect(second.id).toBe(jobId);
      await expect(
        broker.rpc(publisherJobCreate, payload, { orgId: await decodeOrg(otherAuth), requestId: 'r3' }),
      ).rejects.toMatchObject({ code: 'conflict' });
      await waitForFinal(system, auth, jobId);
      expect((await system.sandbox.posts('x')).filter((item) => item.text === 'answer lost once')).toHaveLength(1);
    });

    it('keeps a refused request as its first answer, and checks the key length', async () => {
      const bad = await publish({ account_ids: [UNKNOWN_ID], text: 'retry me' }, { 'Idempotency-Key': 'key-5' });
      expect(bad.status).toBe(400);
      const again = await publish({ account_ids: [UNKNOWN_ID], text: 'retry me' }, { 'Idempotency-Key': 'key-5' });
      expect(again.status).toBe(400);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.error).toEqual({ ...bad.body.error, request_id: again.body.error.request_id });
      const other = await publish({ account_ids: [x], text: 'retry me' }, { 'Idempotency-Key': 'key-5' });
      expect(other.status).toBe(422);
      expect(other.body.error.code).toBe('idempotency_conflict');
      const good = await publish({ account_ids: [x], text: 'retry me' }, { 'Idempotency-Key': 'key-5b' });
      expect(good.status).toBe(202);
      expect(
        (await publish({ account_ids: [x], text: 'long key' }, { 'Idempotency-Key': 'k'.repeat(256) })).status,
      ).toBe(400);
    });

    it('takes a key of 255 characters and replays it; refuses an empty key and one of 256 with the error body', async () => {
      const longest = 'k'.repeat(255);
      const body = { account_ids: [x], text: 'longest key' };
      const first = await publish(body, { 'Idempotency-Key': longest });
      expect(first.status).toBe(202);
      const again = await publish(body, { 'Idempotency-Key': longest });
      expect(again.status).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const before = (await request(system.gateway).get('/v1/publish').set('Authorization', auth)).body.total as number;
      for (const key of ['', `${longest}k`]) {
        const res = await publish({ account_ids: [x], text: `key of ${key.length}` }, { 'Idempotency-Key': key });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: {
            code: 'validation_error',
            message: expect.any(String),
            details: [expect.objectContaining({ path: '/headers/idempotency-key' })],
            request_id: res.headers['x-request-id'],
          },
        });
      }
      // Refused before anything was created.
      expect((await request(system.gateway).get('/v1/publish').set('Authorization', auth)).body.total).toBe(before);
    });

    it('replays the first answer of POST /v1/posts for the same key and body (one post), and refuses another body with 422', async () => {
      const post = (body: object) =>
        request(system.gateway)
          .post('/v1/posts')
          .set('Authorization', auth)
          .set('Idempotency-Key', 'posts-key-1')
          .send(body);
      const text = `posts idempotent ${Date.now()}`;
      const body = { account_ids: [x], text, platform_options: { x: {} } };
      const first = await post(body);
      expect(first.status).toBe(202);
      expect(first.body).toEqual(expect.objectContaining({ id: expect.any(String), status: 'queued', text }));
      const again = await post({ platform_options: { x: {} }, text, account_ids: [x] });
      expect(again.status).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const other = await post({ ...body, text: `${text} edited` });
      expect(other.status).toBe(422);
      expect(other.body).toEqual({
        error: expect.objectContaining({
          code: 'idempotency_conflict',
          message: expect.any(String),
          request_id: other.headers['x-request-id'],
        }),
      });
      expect((await waitForFinal(system, auth, first.body.id)).status).toBe('published');
      const listed = (await request(system.gateway).get('/v1/posts').query({ limit: 100 }).set('Authorization', auth))
        .body.items as { id: string; text: string }[];
      expect(listed.filter((item) => item.text.startsWith(text)).map((item) => item.id)).toEqual([first.body.id]);
      expect((await system.sandbox.posts('x')).filter((item) => item.text.startsWith(text))).toHaveLength(1);
    });
  });

  describe('cancel', () => {
    it('cancels a scheduled job (200 canceled), on both families', async () => {
      const job = await publish({ account_ids: [x], text: 'to cancel', scheduled_at: inSeconds(300) });
      const res = await request(system.gateway)
        .post(`/v1/publish/${job.body.job_id}/cancel`)
        .set('Authorization', auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ job_id: job.body.job_id, status: 'canceled', scheduled_at: job.body.scheduled_at });
      const post = await request(system.gateway)
        .post('/v1/posts')
        .set('Authorization', auth)
        .send({ account_ids: [x], text: 'post to cancel', scheduled_at: inSeconds(300) });
      const canceled = await request(system.gateway)
        .post(`/v1/posts/${post.body.id}/cancel`)
        .set('Authorization', auth);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toEqual(expect.objectContaining({ id: post.body.id, status: 'canceled' }));
      expect(canceled.body.results[0].status).toBe('canceled');
    });

    it('answers 409 once queued or processing, 404 for unknown or foreign ids', async () => {
      const job = await publish({ account_ids: [x], text: 'too late to cancel' });
      const res = await request(system.gateway)
        .post(`/v1/publish/${job.body.job_id}/cancel`)
        .set('Authorization', auth);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('conflict');
      expect(
        (await request(system.gateway).post(`/v1/posts/${job.body.job_id}/cancel`).set('Authorization', auth)).status,
      ).toBe(409);
      expect(
        (await request(system.gateway).post(`/v1/publish/${UNKNOWN_ID}/cancel`).set('Authorization', auth)).status,
      ).toBe(404);
      expect((await request(system.gateway).post('/v1/publish/nope/cancel').set('Authorization', auth)).status).toBe(
        404,
      );
      const scheduled = await publish({ account_ids: [x], text: 'foreign cancel', scheduled_at: inSeconds(300) });
      expect(
        (
          await request(system.gateway)
            .post(`/v1/publish/${scheduled.body.job_id}/cancel`)
            .set('Authorization', otherAuth)
        ).status,
      ).toBe(404);
    });
  });

  describe('stats', () => {
    it('is dashboard-JWT only and counts this month', async () => {
      const key = await system.apiKey(await decodeOrg(auth));
      expect((await request(system.gateway).get('/v1/stats').set('Authorization', `Bearer ${key}`)).status).toBe(403);
      const res = await request(system.gateway).get('/v1/stats').set('Authorization', auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        posts_this_month: expect.any(Number),
        connected_networks: 4,
        total_networks: 5,
        queue_processing: expect.any(Number),
        success_rate: expect.any(Number),
      });
      expect(res.body.posts_this_month).toBeGreaterThan(0);
    });
  });
});

/** The organization of a harness JWT (its `org_id` claim). */
async function decodeOrg(auth: string): Promise<string> {
  const payload = auth.split('.')[1]!;
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { org_id: string }).org_id;
}
