// The /v1/webhooks endpoints through the gateway, with a real dispatcher and a real receiver:
// auth, validation, tenant isolation, the test delivery, secret rotation and both payload shapes,
// verified with the Node example of docs/webhooks.md.
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { loadDocsExample } from './docs-example.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let system: SystemHarness;
let receiver: Receiver;
const logLines: string[] = [];
const secrets: string[] = [];
const docs = loadDocsExample();
let auth: string;
let otherAuth: string;

beforeAll(async () => {
  receiver = await startReceiver();
  system = await startSystem({
    services: ['webhook-dispatcher'],
    logLines,
    // Test sends hang longer than deliveries here, so the hanging-receiver test has room to observe them.
    env: { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_TEST_TIMEOUT_MS: '8000', WEBHOOK_ATTEMPTS_LISTED: '3' },
  });
  auth = `Bearer ${await system.token('org_wh_a')}`;
  otherAuth = `Bearer ${await system.token('org_wh_b')}`;
}, 60_000);

afterAll(async () => {
  // The receiver first: attempts still hanging on it end at once instead of outliving the system.
  await receiver?.close();
  await system?.close();
});

async function create(body: Record<string, unknown>, as = auth) {
  const res = await request(system.gateway).post('/v1/webhooks').set('Authorization', as).send(body);
  if (res.status === 201) secrets.push((res.body as { signing_secret: string }).signing_secret);
  return res;
}

describe('webhook endpoints', () => {
  it('answer 403 to an API key on every route', async () => {
    const key = await system.apiKey('org_wh_a');
    const id = '00000000-0000-4000-8000-000000000000';
    const calls = [
      request(system.gateway).get('/v1/webhooks'),
      request(system.gateway)
        .post('/v1/webhooks')
        .send({ url: receiver.url('/x'), events: ['post.published'] }),
      request(system.gateway).patch(`/v1/webhooks/${id}`).send({ active: true }),
      request(system.gateway).delete(`/v1/webhooks/${id}`),
      request(system.gateway).post(`/v1/webhooks/${id}/test`),
      request(system.gateway).post(`/v1/webhooks/${id}/rotate-secret`),
      request(system.gateway).get(`/v1/webhooks/${id}/deliveries`),
      request(system.gateway).post(`/v1/webhooks/${id}/deliveries/${id}/replay`),
    ];
    for (const call of calls) {
      const res = await call.set('Authorization', `Bearer ${key}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('validates events and the url', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: receiver.url('/v'), events: [] }, /events/],
      [{ url: receiver.url('/v'), events: ['post.deleted'] }, /events/],
      [{ url: receiver.url('/v') }, /events/],
      [{ url: receiver.url('/v'), events: ['post.published'], extra: 1 }, /extra/],
      [{ url: 'ftp://example.com/', events: ['post.published'] }, /url/],
      [{ url: 'http://169.254.169.254/latest', events: ['post.published'] }, /not allowed or could not be resolved/],
      [{ url: 'http://[fd00:ec2::254]/', events: ['post.published'] }, /not allowed or could not be resolved/],
      [{ url: 'http://no-such-host.invalid/', events: ['post.published'] }, /not allowed or could not be resolved/],
      [{ url: receiver.url('/v'), events: ['post.published'], payload_format: 'xml' }, /payload_format/],
    ];
    for (const [body, pattern] of cases) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(JSON.stringify(res.body.error)).toMatch(pattern);
    }
  });

  it('creates (secret shown once), lists, updates and deletes', async () => {
    const created = await create({ url: receiver.url('/crud'), events: ['post.published', 'post.failed'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: receiver.url('/crud'),
      events: ['post.published', 'post.failed'],
      active: true,
      status: 'active',
      payload_format: 'envelope',
    });
    expect(created.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const id = created.body.id as string;

    const list = await request(system.gateway).get('/v1/webhooks').set('Authorization', auth);
    expect(list.status).toBe(200);
    const listed = (list.body as { id: string }[]).find((endpoint) => endpoint.id === id);
    expect(listed).toBeDefined();
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const disabled = await request(system.gateway)
      .patch(`/v1/webhooks/${id}`)
      .set('Authorization', auth)
      .send({ active: false, events: ['post.queued'] });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ active: false, status: 'disabled', events: ['post.queued'] });
    const resumed = await request(system.gateway)
      .patch(`/v1/webhooks/${id}`)
      .set('Authorization', auth)
      .send({ active: true });
    expect(resumed.body).toMatchObject({ active: true, status: 'active' });
    const badUrl = await request(system.gateway)
      .patch(`/v1/webhooks/${id}`)
      .set('Authorization', auth)
      .send({ url: 'http://169.254.169.254/' });
    expect(badUrl.status).toBe(400);
    const empty = await request(system.gateway).patch(`/v1/webhooks/${id}`).set('Authorization', auth).send({});
    expect(empty.status).toBe(400);

    expect((await request(system.gateway).delete(`/v1/webhooks/${id}`).set('Authorization', auth)).status).toBe(204);
    expect((await request(system.gateway).delete(`/v1/webhooks/${id}`).set('Authorization', auth)).status).toBe(404);
    expect((await request(system.gateway).get(`/v1/webhooks/${id}/deliveries`).set('Authorization', auth)).status).toBe(
      404,
    );
  });

  it('keeps organizations apart: foreign and malformed ids answer 404 on every route', async () => {
    const created = await create({ url: receiver.url('/mine'), events: ['post.published'] });
    const id = created.body.id as string;
    const test = await request(system.gateway).post(`/v1/webhooks/${id}/test`).set('Authorization', auth);
    const deliveryId = test.body.id as string;
    for (const [as, webhookId] of [
      [otherAuth, id],
      [auth, 'not-a-uuid'],
    ] as const) {
      const calls = [
        request(system.gateway).patch(`/v1/webhooks/${webhookId}`).send({ active: false }),
        request(system.gateway).delete(`/v1/webhooks/${webhookId}`),
        request(system.gateway).post(`/v1/webhooks/${webhookId}/test`),
        request(system.gateway).post(`/v1/webhooks/${webhookId}/rotate-secret`),
        request(system.gateway).get(`/v1/webhooks/${webhookId}/deliveries`),
        request(system.gateway).post(`/v1/webhooks/${webhookId}/deliveries/${deliveryId}/replay`),
      ];
      for (const call of calls) {
        const res = await call.set('Authorization', as);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    }
    const otherList = await request(system.gateway).get('/v1/webhooks').set('Authorization', otherAuth);
    expect(otherList.body).toEqual([]);
    // The endpoint is untouched by the foreign calls.
    const list = await request(system.gateway).get('/v1/webhooks').set('Authorization', auth);
    expect((list.body as { id: string; active: boolean }[]).find((endpoint) => endpoint.id === id)?.active).toBe(true);
    // A delivery id of another endpoint of the same organization is not found either.
    const second = await create({ url: receiver.url('/mine2'), events: ['post.published'] });
    const crossed = await request(system.gateway)
      .post(`/v1/webhooks/${second.body.id as string}/deliveries/${deliveryId}/replay`)
      .set('Authorization', auth);
    expect(crossed.status).toBe(404);
  });

  it('sends a signed sample event now and records it as a delivery', async () => {
    receiver.script('/test-ok', () => ({ status: 204 }));
    receiver.script('/test-fail', () => ({ status: 500, body: 'broken receiver' }));
    const ok = await create({ url: receiver.url('/test-ok'), events: ['post.failed', 'post.published'] });
    const res = await request(system.gateway)
      .post(`/v1/webhooks/${ok.body.id as string}/test`)
      .set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event_type: 'post.failed', status_code: 204, attempts: 1, error: null });
    const [sample] = receiver.received('/test-ok');
    expect(sample).toBeDefined();
    expect(docs.verifyShapeA(ok.body.signing_secret as string, sample!.headers, sample!.rawBody)).toBe(true);
    expect(docs.verifyShapeA('whsec_wrong', sample!.headers, sample!.rawBody)).toBe(false);
    expect(docs.verifyShapeA(ok.body.signing_secret as string, sample!.headers, `${sample!.rawBody} `)).toBe(false);
    const body = JSON.parse(sample!.rawBody) as { id: string; type: string; data: Record<string, unknown> };
    expect(body).toMatchObject({ id: res.body.id, type: 'post.failed' });
    expect(Object.keys(body.data).sort()).toEqual(['account_ids', 'error_message', 'id', 'platforms', 'text']);
    expect(sample!.headers).toMatchObject({ 'x-svc-event': 'post.failed', 'x-svc-delivery': res.body.id });

    const failing = await create({ url: receiver.url('/test-fail'), events: ['post.published'] });
    const failed = await request(system.gateway)
      .post(`/v1/webhooks/${failing.body.id as string}/test`)
      .set('Authorization', auth);
    expect(failed.body).toMatchObject({ status_code: 500, attempts: 1 });
    const deliveries = await request(system.gateway)
      .get(`/v1/webhooks/${failing.body.id as string}/deliveries`)
      .set('Authorization', auth);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.total).toBe(1);
    expect(deliveries.body.items[0]).toMatchObject({
      id: failed.body.id,
      event_type: 'post.published',
      status: 'failed',
      next_attempt_at: null,
    });
    expect(deliveries.body.items[0].attempts[0]).toMatchObject({
      status_code: 500,
      response_excerpt: 'broken receiver',
    });

    // A name that resolves (to an address allowed in tests): the error names the failure, never the address.
    const refused = await create({ url: 'http://localhost:1/closed', events: ['post.published'] });
    const nothing = await request(system.gateway)
      .post(`/v1/webhooks/${refused.body.id as string}/test`)
      .set('Authorization', auth);
    expect(nothing.body).toMatchObject({ status_code: 0, attempts: 1 });
    expect(nothing.body.error).toMatch(/ECONNREFUSED/);
    const listed = await request(system.gateway)
      .get(`/v1/webhooks/${refused.body.id as string}/deliveries`)
      .set('Authorization', auth);
    for (const text of [JSON.stringify(nothing.body), JSON.stringify(listed.body)])
      expect(text).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it("answers a hanging receiver's test sends without delaying another organization's calls", async () => {
    receiver.script('/test-hang', () => 'hang');
    receiver.script('/test-other', () => ({ status: 200 }));
    const hanging = await create({ url: receiver.url('/test-hang'), events: ['post.published'] });
    const other = await create({ url: receiver.url('/test-other'), events: ['post.published'] }, otherAuth);
    const answered: { status: number; retryAfter: string | undefined; statusCode: unknown }[] = [];
    const calls: Promise<void>[] = [];
    // A few milliseconds apart, as a client would send them: calls of one turn would share one RPC message.
    for (let i = 0; i < 25; i += 1) {
      calls.push(
        request(system.gateway)
          .post(`/v1/webhooks/${hanging.body.id as string}/test`)
          .set('Authorization', auth)
          .then(
            (res) =>
              void answered.push({
                status: res.status,
                retryAfter: res.headers['retry-after'] as string | undefined,
                statusCode: res.body.status_code,
              }),
          ),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Every call is either answered or at the receiver (where it stays until the test timeout): as
    // many as the RPC prefetch (20) would be holding the dispatcher's API if tests ran on its queue.
    for (const deadline = Date.now() + 10_000; answered.length + receiver.received('/test-hang').length < 20;) {
      if (Date.now() > deadline)
        throw new Error(`${answered.length} answered, ${receiver.received('/test-hang').length} at the receiver`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Another organization's list and its own test send are answered while those still hang: none
    // of the tests that reached the receiver has been answered yet.
    const list = await request(system.gateway).get('/v1/webhooks').set('Authorization', otherAuth);
    expect(list.status).toBe(200);
    const test = await request(system.gateway)
      .post(`/v1/webhooks/${other.body.id as string}/test`)
      .set('Authorization', otherAuth);
    expect(test.body).toMatchObject({ status_code: 200, error: null });
    expect(answered.filter((answer) => answer.status === 200)).toEqual([]);
    // The rest were refused at once with the project's 429 and a Retry-After.
    const refused = answered.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    expect(refused.every((answer) => Number(answer.retryAfter) > 0)).toBe(true);
    await Promise.all(calls);
    expect(receiver.received('/test-hang').length).toBeLessThanOrEqual(2);
    expect(answered.filter((answer) => answer.status === 200).map((answer) => answer.statusCode)).toEqual([0, 0]);
  }, 30_000);

  it('refuses the endpoint past the limit per organization, also when created at once', async () => {
    const cap = `Bearer ${await system.token('org_wh_cap')}`;
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => create({ url: receiver.url(`/cap-${i}`), events: ['post.published'] }, cap)),
    );
    expect(results.filter((res) => res.status === 201)).toHaveLength(20);
    const refused = results.filter((res) => res.status !== 201);
    expect(refused).toHaveLength(5);
    for (const res of refused) {
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({
        code: 'conflict',
        details: [expect.objectContaining({ rule: 'max_endpoints', limit: 20 })],
      });
    }
    const list = await request(system.gateway).get('/v1/webhooks').set('Authorization', cap);
    expect(list.body).toHaveLength(20);
    // The 21st is refused one at a time too; deleting one makes room.
    expect((await create({ url: receiver.url('/cap-late'), events: ['post.published'] }, cap)).status).toBe(409);
    await request(system.gateway)
      .delete(`/v1/webhooks/${(list.body as { id: string }[])[0]!.id}`)
      .set('Authorization', cap)
      .expect(204);
    expect((await create({ url: receiver.url('/cap-late'), events: ['post.published'] }, cap)).status).toBe(201);
  });

  it('lists only the latest attempts of a delivery, counting the others', async () => {
    receiver.script('/attempts', () => ({ status: 500 }));
    const created = await create({ url: receiver.url('/attempts'), events: ['post.published'] });
    const id = created.body.id as string;
    const test = await request(system.gateway).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(200);
    for (let replays = 1; replays <= 4; replays += 1) {
      await request(system.gateway)
        .post(`/v1/webhooks/${id}/deliveries/${test.body.id as string}/replay`)
        .set('Authorization', auth)
        .expect(202);
      await receiver.waitFor('/attempts', replays + 1);
      const deadline = Date.now() + 10_000;
      // The attempt is recorded just after the receiver answered.
      for (;;) {
        const page = await request(system.gateway).get(`/v1/webhooks/${id}/deliveries`).set('Authorization', auth);
        const [item] = page.body.items as { attempts: unknown[]; attempts_omitted: number }[];
        if (item!.attempts.length + item!.attempts_omitted === replays + 1) break;
        if (Date.now() > deadline) throw new Error(`attempt ${replays + 1} was not recorded`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const page = await request(system.gateway).get(`/v1/webhooks/${id}/deliveries`).set('Authorization', auth);
    expect(page.body).toMatchObject({ total: 1, total_exact: true });
    expect(page.body.items[0].attempts).toHaveLength(3);
    expect(page.body.items[0].attempts_omitted).toBe(2);
  });

  it('signs with both secrets for the overlap after a rotation', async () => {
    const created = await create({ url: receiver.url('/rotate'), events: ['post.published'] });
    const id = created.body.id as string;
    const oldSecret = created.body.signing_secret as string;
    const rotated = await request(system.gateway).post(`/v1/webhooks/${id}/rotate-secret`).set('Authorization', auth);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.signing_secret as string;
    secrets.push(newSecret);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    await request(system.gateway).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(200);
    const [delivery] = receiver.received('/rotate');
    expect(String(delivery!.headers['x-svc-signature']).split(',')).toHaveLength(2);
    expect(docs.verifyShapeA(newSecret, delivery!.headers, delivery!.rawBody)).toBe(true);
    expect(docs.verifyShapeA(oldSecret, delivery!.headers, delivery!.rawBody)).toBe(true);
    // Stale timestamps are refused by the documented check.
    expect(
      docs.verifyShapeA(newSecret, delivery!.headers, delivery!.rawBody, Math.floor(Date.now() / 1000) + 301),
    ).toBe(false);
  });

  it('keeps the first secret signing after a second rotation within its overlap', async () => {
    const created = await create({ url: receiver.url('/rotate-twice'), events: ['post.published'] });
    const id = created.body.id as string;
    const first = created.body.signing_secret as string;
    const second = (
      await request(system.gateway).post(`/v1/webhooks/${id}/rotate-secret`).set('Authorization', auth).expect(200)
    ).body.signing_secret as string;
    const third = (
      await request(system.gateway).post(`/v1/webhooks/${id}/rotate-secret`).set('Authorization', auth).expect(200)
    ).body.signing_secret as string;
    secrets.push(second, third);
    await request(system.gateway).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(200);
    const [delivery] = receiver.received('/rotate-twice');
    expect(String(delivery!.headers['x-svc-signature']).split(',')).toHaveLength(3);
    for (const secret of [first, second, third])
      expect(docs.verifyShapeA(secret, delivery!.headers, delivery!.rawBody)).toBe(true);
    // Three earlier secrets signing is the most: a fourth rotation waits until the oldest ends.
    secrets.push(
      (await request(system.gateway).post(`/v1/webhooks/${id}/rotate-secret`).set('Authorization', auth).expect(200))
        .body.signing_secret as string,
    );
    const refused = await request(system.gateway).post(`/v1/webhooks/${id}/rotate-secret`).set('Authorization', auth);
    expect(refused.status).toBe(409);
    expect(refused.body.error.details[0]).toMatchObject({ rule: 'max_previous_secrets' });
  });

  it('sends Shape B with Svc-Signature to legacy endpoints, old secret included after rotation', async () => {
    const created = await create({
      url: receiver.url('/legacy'),
      events: ['post.published'],
      payload_format: 'legacy',
    });
    expect(created.body.payload_format).toBe('legacy');
    const id = created.body.id as string;
    await request(system.gateway).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(200);
    const rotated = await request(system.gateway).post(`/v1/webhooks/${id}/rotate-secret`).set('Authorization', auth);
    secrets.push(rotated.body.signing_secret as string);
    await request(system.gateway).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(200);
    const [first, second] = receiver.received('/legacy');
    expect(first!.headers['x-svc-signature']).toBeUndefined();
    expect(String(first!.headers['svc-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(docs.verifyShapeB(created.body.signing_secret as string, first!.headers, first!.rawBody)).toBe(true);
    expect(docs.verifyShapeB(rotated.body.signing_secret as string, second!.headers, second!.rawBody)).toBe(true);
    expect(docs.verifyShapeB(created.body.signing_secret as string, second!.headers, second!.rawBody)).toBe(true);
    expect(docs.verifyShapeB('whsec_wrong', second!.headers, second!.rawBody)).toBe(false);
    const body = JSON.parse(first!.rawBody) as { event_type: string; timestamp: string; data: Record<string, unknown> };
    expect(body.event_type).toBe('post.published');
    expect(Object.keys(body.data).sort()).toEqual(['account_id', 'job_id', 'platform_post_id', 'provider', 'status']);
  });

  it('paginates deliveries with an opaque cursor and refuses a tampered one', async () => {
    const created = await create({ url: receiver.url('/pages'), events: ['post.queued'] });
    const id = created.body.id as string;
    for (let i = 0; i < 3; i += 1)
      await request(system.gateway).post(`/v1/webhooks/${id}/test`).set('Authorization', auth).expect(200);
    const first = await request(system.gateway).get(`/v1/webhooks/${id}/deliveries?limit=2`).set('Authorization', auth);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.total).toBe(3);
    const second = await request(system.gateway)
      .get(`/v1/webhooks/${id}/deliveries?limit=2&cursor=${first.body.next_cursor as string}`)
      .set('Authorization', auth);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const ids = [...first.body.items, ...second.body.items].map((item: { id: string }) => item.id);
    expect(new Set(ids).size).toBe(3);
    const tampered = await request(system.gateway)
      .get(`/v1/webhooks/${id}/deliveries?cursor=abc`)
      .set('Authorization', auth);
    expect(tampered.status).toBe(400);
  });

  it('never logs a signing secret', () => {
    expect(secrets.length).toBeGreaterThan(3);
    const log = logLines.join('');
    expect(log.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(log).not.toContain(secret.slice(6));
  });
});
