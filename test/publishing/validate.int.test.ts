import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, validBody } from './publishing-support.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

interface Problem {
  account_id: string | null;
  path: string;
  rule: string;
  message: string;
}

describe('POST /v1/posts/validate', () => {
  let system: SystemHarness;
  let orgId: string;
  let auth: string;
  let ig: string;
  let x: string;
  let tiktok: string;

  const validate = (body: unknown, credential = auth) =>
    request(system.gateway)
      .post('/v1/posts/validate')
      .set('Authorization', credential)
      .send(body as object);
  const totals = async () => {
    const [posts, media] = await Promise.all([
      request(system.gateway).get('/v1/posts').set('Authorization', auth),
      request(system.gateway).get('/v1/media').set('Authorization', auth),
    ]);
    return { posts: posts.body.total as number, media: media.body.total as number };
  };
  const rulesOf = (problems: Problem[]) => problems.map((problem) => `${problem.account_id ?? '-'} ${problem.rule}`);

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'] });
    orgId = `org_validate_${Date.now()}`;
    auth = `Bearer ${await system.token(orgId)}`;
    ig = await connectAccount(system, auth, 'instagram');
    x = await connectAccount(system, auth, 'x');
    tiktok = await connectAccount(system, auth, 'tiktok');
  }, 60_000);

  afterAll(async () => system?.close());

  it('answers valid for a body create would accept, and creates nothing: no post, no media, no idempotency record', async () => {
    const before = await totals();
    const body = { ...validBody(system, [ig, x, tiktok]) };
    const { provider_options: options, ...rest } = body;
    const res = await validate({ ...rest, platform_options: options }).set('Idempotency-Key', 'validate-once');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, problems: [] });
    expect(await totals()).toEqual(before);
    // The same key on create is a fresh key: validate recorded nothing under it.
    const created = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', auth)
      .set('Idempotency-Key', 'validate-once')
      .send({ ...rest, platform_options: options });
    expect(created.status).toBe(202);
  });

  it('lists every problem of every target at once, each tied to its account or to none', async () => {
    const res = await validate({
      account_ids: [ig, x, tiktok, UNKNOWN_ID],
      text: `${'long '.repeat(80)}`,
      media_urls: [system.media.url('/missing.jpg')],
      scheduled_at: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    const problems = res.body.problems as Problem[];
    expect(rulesOf(problems)).toEqual(
      expect.arrayContaining([
        '- scheduled_at_lead',
        `${x} text_length`,
        `${tiktok} privacy_level_required`,
        `${UNKNOWN_ID} unknown_account`,
      ]),
    );
    const missing = problems.find((problem) => problem.path === '/body/media_urls/0');
    expect(missing).toMatchObject({ account_id: null });
    expect(problems.find((p) => p.rule === 'scheduled_at_lead')).toMatchObject({
      account_id: null,
      path: '/body/scheduled_at',
    });
    // The URL could not be read: rules counting media kinds are not applied (no false media_required).
    expect(rulesOf(problems)).not.toContain(`${ig} media_required`);
  });

  it('reads media URLs without importing them, so the rules depending on media kind apply', async () => {
    const before = await totals();
    const images = Array.from({ length: 5 }, (_, i) => system.media.url(`/image.jpg?n=${i}`));
    const tooMany = await validate({ account_ids: [x], text: 'hi', media_urls: images });
    expect(rulesOf(tooMany.body.problems)).toEqual([`${x} media_count`]);
    const mixed = await validate({
      account_ids: [x, ig],
      text: 'hi',
      media_urls: [system.media.url('/image.jpg'), system.media.url('/video.mp4')],
    });
    expect(rulesOf(mixed.body.problems)).toContain(`${x} media_mix`);
    const textOnly = await validate({ account_ids: [ig], text: 'hi' });
    expect(rulesOf(textOnly.body.problems)).toEqual([`${ig} media_required`]);
    expect(await totals()).toEqual(before);
  });

  it('refuses a media URL the SSRF guard refuses', async () => {
    const res = await validate({ account_ids: [x], text: 'hi', media_urls: ['http://no-such-host.invalid/a.jpg'] });
    expect(res.body.problems).toEqual([
      expect.objectContaining({ account_id: null, path: '/body/media_urls/0', rule: 'media_url' }),
    ]);
  });

  it('answers 400 to a body that does not fit the schema (shape problems are not problems)', async () => {
    const res = await validate({ account_ids: [x], text: '', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('create refuses the same body with the same problems as details', async () => {
    const body = { account_ids: [ig, x, UNKNOWN_ID], text: 'x'.repeat(300) };
    const checked = await validate(body);
    const created = await request(system.gateway).post('/v1/posts').set('Authorization', auth).send(body);
    expect(created.status).toBe(400);
    const details = (created.body.error.details as { rule: string }[]).map((detail) => detail.rule).sort();
    expect(details).toEqual((checked.body.problems as Problem[]).map((problem) => problem.rule).sort());
  });

  it('lists the problems of a recurrence as create refuses them, each with its path and rule', async () => {
    const recurring = (rule: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
      account_ids: [x],
      text: 'every monday',
      recurrence: { freq: 'weekly', days: ['mon'], time: '09:00', timezone: 'Europe/Berlin', ...rule },
      ...extra,
    });
    const soon = new Date(Date.now() + 3600_000).toISOString();
    const cases: [Record<string, unknown>, string, string][] = [
      [recurring({ timezone: '+01:00' }), '/body/recurrence/timezone', 'timezone_invalid'],
      [
        recurring({ until: new Date(Date.now() + 30 * 86_400_000).toISOString(), count: 2 }),
        '/body/recurrence/count',
        'until_with_count',
      ],
      [recurring({ until: '2020-01-01T00:00:00Z' }), '/body/recurrence/until', 'until_not_future'],
      // Ahead, but sooner than the minimum lead (60 s): no time of the rule can come before it.
      [
        recurring({
          days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
          until: new Date(Date.now() + 30_000).toISOString(),
        }),
        '/body/recurrence/until',
        'until_before_first',
      ],
      [recurring({}, { scheduled_at: soon }), '/body/recurrence', 'recurrence_with_scheduled_at'],
      [recurring({}, { queue: true }), '/body/recurrence', 'recurrence_with_queue'],
      [recurring({}, { draft: true }), '/body/recurrence', 'recurrence_with_draft'],
    ];
    for (const [body, path, rule] of cases) {
      const checked = await validate(body);
      expect(checked.status).toBe(200);
      expect(checked.body.valid).toBe(false);
      expect(checked.body.problems).toContainEqual({ account_id: null, path, rule, message: expect.any(String) });
      const created = await request(system.gateway).post('/v1/posts').set('Authorization', auth).send(body);
      expect(created.status).toBe(400);
      expect(created.body.error.details).toContainEqual(expect.objectContaining({ path, rule }));
    }
    expect((await validate(recurring())).body).toEqual({ valid: true, problems: [] });
    expect((await validate(recurring({ days: [] }))).status).toBe(400);
  });

  describe('a read_validate API key', () => {
    let key: string;
    beforeAll(async () => {
      const res = await request(system.gateway)
        .post('/v1/api-keys')
        .set('Authorization', auth)
        .send({ name: 'agent', scope: 'read_validate' });
      expect(res.body.scope).toBe('read_validate');
      key = `Bearer ${res.body.key as string}`;
    });

    it('may read and validate', async () => {
      for (const path of ['/v1/posts', '/v1/accounts', '/v1/media'])
        expect((await request(system.gateway).get(path).set('Authorization', key)).status).toBe(200);
      const res = await validate({ account_ids: [x], text: 'hi' }, key);
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(true);
    });

    it('gets 403 naming its scope for publish, create and delete; a full key is unchanged', async () => {
      const body = { account_ids: [x], text: 'hi' };
      const calls = [
        request(system.gateway).post('/v1/publish').send(body),
        request(system.gateway).post('/v1/posts').send(body),
        request(system.gateway).delete(`/v1/accounts/${x}`),
      ];
      for (const call of calls) {
        const res = await call.set('Authorization', key);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(res.body.error.message).toMatch(/scope is read_validate/);
      }
      const full = `Bearer ${await system.apiKey(orgId)}`;
      expect((await request(system.gateway).post('/v1/posts').set('Authorization', full).send(body)).status).toBe(202);
    });
  });
});
