import { postFailed, type Envelope } from '@svc/contracts';
import { uniqueName, waitFor } from '@svc/testing';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount } from './publishing-support.ts';

interface OccurrenceRow {
  id: string;
  status: string;
  scheduled_at: Date;
  error_code: string | null;
}

const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
// Four days ahead: with a daily rule, the first occurrence and three more.
const HORIZON_HOURS = 96;
const MONTHLY_POSTS = 3;

/**
 * Recurring posts end to end (docs/api-recurring.md): the first occurrence answered at once, the
 * next ones created ahead within RECURRENCE_HORIZON_HOURS, each its own scheduled job with
 * `recurrence_id`, never twice, a refusal by the plan recorded as a failed post, and DELETE
 * stopping the rest.
 */
describe('publishing: recurring posts', () => {
  let system: SystemHarness;
  const failedEvents: Envelope<{ job_id: string; status: string; results: { error_code: string | null }[] }>[] = [];

  beforeAll(async () => {
    system = await startSystem({
      services: ['accounts', 'publisher', 'scheduler'],
      env: {
        RECURRENCE_HORIZON_HOURS: String(HORIZON_HOURS),
        RECURRENCE_EXTEND_INTERVAL_MS: '200',
        PLAN_FREE_POSTS_PER_MONTH: String(MONTHLY_POSTS),
      },
    });
    await system.workers.publisher!.runtime.broker.consume({
      queue: 'test.recurrence-post-failed',
      messages: [postFailed],
      handlers: { 'post.failed.v1': async (env) => void failedEvents.push(env as (typeof failedEvents)[number]) },
    });
  }, 180_000);

  afterAll(async () => {
    await system?.close();
  }, 120_000);

  const newOrg = async () => {
    const auth = `Bearer ${await system.token(uniqueName('org_recur'))}`;
    return { auth, x: await connectAccount(system, auth, 'x') };
  };
  const create = (auth: string, body: Record<string, unknown>) =>
    request(system.gateway).post('/v1/posts').set('Authorization', auth).send(body);
  const recurring = (accountId: string, rule: Record<string, unknown> = {}) => ({
    account_ids: [accountId],
    text: `every day ${uniqueName('r')}`,
    recurrence: { freq: 'weekly', days: EVERY_DAY, time: '10:00', timezone: 'Europe/Berlin', ...rule },
  });
  const getRecurrence = (auth: string, id: string) =>
    request(system.gateway).get(`/v1/recurrences/${id}`).set('Authorization', auth);
  const occurrences = (recurrenceId: string) =>
    system.workers.publisher!.runtime.db.$queryRawUnsafe<OccurrenceRow[]>(
      `SELECT j.id, j.status, j.scheduled_at,
              (SELECT d.error_code FROM deliveries d WHERE d.job_id = j.id LIMIT 1) AS error_code
       FROM jobs j WHERE j.recurrence_id = $1::uuid ORDER BY j.scheduled_at`,
      recurrenceId,
    );
  const settled = async (recurrenceId: string, expected: number) => {
    await waitFor(async () => (await occurrences(recurrenceId)).length >= expected, {
      what: `${expected} occurrences`,
      timeoutMs: 20_000,
    });
    return occurrences(recurrenceId);
  };

  it('answers the first occurrence and creates the next ones ahead, each its own job, within the horizon', async () => {
    const { auth, x } = await newOrg();
    const res = await create(auth, recurring(x, { count: 3 }));
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('scheduled');
    const recurrenceId = res.body.recurrence_id as string;
    expect(recurrenceId).toEqual(expect.any(String));
    const rows = await settled(recurrenceId, 3);
    expect(rows).toHaveLength(3);
    expect(rows[0]!.id).toBe(res.body.id);
    expect(new Set(rows.map((row) => row.id)).size).toBe(3);
    expect(rows.every((row) => row.status === 'scheduled')).toBe(true);
    const limit = Date.now() + HORIZON_HOURS * 3600_000;
    expect(rows.every((row) => row.scheduled_at.getTime() <= limit)).toBe(true);
    for (const row of rows) {
      const post = await request(system.gateway).get(`/v1/posts/${row.id}`).set('Authorization', auth);
      expect(post.status).toBe(200);
      expect(post.body.recurrence_id).toBe(recurrenceId);
    }
    const rec = await getRecurrence(auth, recurrenceId);
    expect(rec.status).toBe(200);
    // All three created: what is to come are those still scheduled, nothing more of the rule.
    expect(rec.body).toMatchObject({ id: recurrenceId, status: 'active', occurrences_created: 3 });
    expect(rec.body.next_occurrences).toEqual(rows.map((row) => row.scheduled_at.toISOString()));
    expect(rec.body.rule).toMatchObject({ freq: 'weekly', time: '10:00', timezone: 'Europe/Berlin', count: 3 });
  });

  it('recurring occurrences survive a scheduler restart: a pass run again creates none twice', async () => {
    const { auth, x } = await newOrg();
    const res = await create(auth, recurring(x, { count: 3 }));
    expect(res.status).toBe(202);
    const first = await settled(res.body.recurrence_id, 3);
    // The pass that created the third has also moved its cursor (else it would move it past the rewind).
    await waitFor(async () => (await getRecurrence(auth, res.body.recurrence_id)).body.occurrences_created === 3, {
      what: 'the cursor at 3',
      timeoutMs: 20_000,
    });
    // A process that stopped after creating occurrences but before moving the cursor: the next pass
    // goes over the same times again.
    await system.workers.publisher!.runtime.db.$executeRawUnsafe(
      'UPDATE recurrences SET last_occurrence_at = $2, occurrences_created = 1 WHERE id = $1::uuid',
      res.body.recurrence_id,
      first[0]!.scheduled_at,
    );
    await waitFor(async () => (await getRecurrence(auth, res.body.recurrence_id)).body.occurrences_created === 3, {
      what: 'the cursor back at 3',
      timeoutMs: 20_000,
    });
    const again = await occurrences(res.body.recurrence_id);
    expect(again.map((row) => row.id)).toEqual(first.map((row) => row.id));
  });

  it('records an occurrence refused by the plan as a failed post with plan_limit_reached, announced as post.failed', async () => {
    const { auth, x } = await newOrg();
    const res = await create(auth, recurring(x));
    expect(res.status).toBe(202);
    const rows = await settled(res.body.recurrence_id, MONTHLY_POSTS + 1);
    const failed = rows.filter((row) => row.status === 'failed');
    expect(rows.filter((row) => row.status === 'scheduled')).toHaveLength(MONTHLY_POSTS);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.every((row) => row.error_code === 'plan_limit_reached')).toBe(true);
    const post = await request(system.gateway).get(`/v1/posts/${failed[0]!.id}`).set('Authorization', auth);
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({ status: 'failed', recurrence_id: res.body.recurrence_id });
    expect(post.body.results[0]).toMatchObject({ status: 'failed', error_code: 'plan_limit_reached' });
    const event = await waitFor(() => failedEvents.find((env) => env.payload.job_id === failed[0]!.id), {
      what: 'post.failed of the refused occurrence',
    });
    expect(event.org_id).toEqual(expect.any(String));
    expect(event.payload).toMatchObject({ status: 'failed', results: [{ error_code: 'plan_limit_reached' }] });
  });

  it('shows the media on every occurrence: the URLs imported once, each occurrence listing the same library media', async () => {
    const { auth, x } = await newOrg();
    const url = system.media.url('/image.jpg');
    const res = await create(auth, { ...recurring(x, { count: 2 }), media_urls: [url] });
    expect(res.status).toBe(202);
    const [first, second] = await settled(res.body.recurrence_id, 2);
    const get = async (id: string) =>
      (await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', auth)).body as {
        media_urls: string[];
        media_ids?: string[];
      };
    const one = await get(first!.id);
    expect(one.media_urls).toEqual([url]);
    expect(one.media_ids).toEqual([expect.stringMatching(/^med_/)]);
    const two = await get(second!.id);
    expect(two.media_ids).toEqual(one.media_ids);
    const history = await request(system.gateway).get('/v1/posts').set('Authorization', auth);
    const listed = (history.body.items as { id: string; media_ids?: string[] }[]).filter((item) =>
      [first!.id, second!.id].includes(item.id),
    );
    expect(listed.map((item) => item.media_ids)).toEqual([one.media_ids, one.media_ids]);
  });

  it('keeps a media item a recurrence will still post: DELETE /v1/media is a 409 naming it until the recurrence is deleted', async () => {
    const { auth, x } = await newOrg();
    // Mondays only: the first occurrence, the next one a week away (past the horizon, not created).
    const res = await create(auth, {
      ...recurring(x, { days: ['mon'] }),
      media_urls: [system.media.url('/image.jpg')],
    });
    expect(res.status).toBe(202);
    const mediaId = (await request(system.gateway).get(`/v1/posts/${res.body.id}`).set('Authorization', auth)).body
      .media_ids[0] as string;
    // No scheduled post holds it any more: only the recurrence's occurrences to come.
    const canceled = await request(system.gateway).post(`/v1/posts/${res.body.id}/cancel`).set('Authorization', auth);
    expect(canceled.status).toBe(200);
    const refused = await request(system.gateway).delete(`/v1/media/${mediaId}`).set('Authorization', auth);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.message).toContain(res.body.recurrence_id);
    expect(
      (await request(system.gateway).delete(`/v1/recurrences/${res.body.recurrence_id}`).set('Authorization', auth))
        .status,
    ).toBe(204);
    expect((await request(system.gateway).delete(`/v1/media/${mediaId}`).set('Authorization', auth)).status).toBe(204);
  });

  it('records an occurrence whose media left the library anyway as failed, naming the missing media', async () => {
    const { auth, x } = await newOrg();
    const res = await create(auth, { ...recurring(x, { count: 2 }), media_urls: [system.media.url('/image.jpg')] });
    expect(res.status).toBe(202);
    const [, second] = await settled(res.body.recurrence_id, 2);
    await waitFor(async () => (await getRecurrence(auth, res.body.recurrence_id)).body.occurrences_created === 2, {
      what: 'the cursor at 2',
      timeoutMs: 20_000,
    });
    const mediaId = (await request(system.gateway).get(`/v1/posts/${res.body.id}`).set('Authorization', auth)).body
      .media_ids[0] as string;
    // The record gone behind the API's back (the delete refuses it), and the second occurrence still
    // to be created: the loop meets the recurrence as before its second pass.
    const db = system.workers.publisher!.runtime.db;
    await db.$executeRawUnsafe('DELETE FROM media WHERE id = $1', mediaId);
    await db.$executeRawUnsafe('DELETE FROM jobs WHERE id = $1::uuid', second!.id);
    await db.$executeRawUnsafe(
      'UPDATE recurrences SET last_occurrence_at = $2, occurrences_created = 1 WHERE id = $1::uuid',
      res.body.recurrence_id,
      (await occurrences(res.body.recurrence_id))[0]!.scheduled_at,
    );
    const [, again] = await settled(res.body.recurrence_id, 2);
    expect(again).toMatchObject({ id: second!.id, status: 'failed' });
    const post = await request(system.gateway).get(`/v1/posts/${second!.id}`).set('Authorization', auth);
    expect(post.body.results[0]).toMatchObject({ status: 'failed', error_code: 'validation_error' });
    expect(post.body.results[0].error_message).toContain(`media ${mediaId} does not exist`);
  });

  it('DELETE stops future occurrences and cancels the created ones still scheduled; another org gets 404', async () => {
    const { auth, x } = await newOrg();
    const other = await newOrg();
    const res = await create(auth, recurring(x, { count: 2 }));
    expect(res.status).toBe(202);
    const id = res.body.recurrence_id as string;
    await settled(id, 2);
    expect((await getRecurrence(other.auth, id)).status).toBe(404);
    expect(
      (await request(system.gateway).delete(`/v1/recurrences/${id}`).set('Authorization', other.auth)).status,
    ).toBe(404);
    expect((await request(system.gateway).get('/v1/recurrences/not-a-uuid').set('Authorization', auth)).status).toBe(
      404,
    );
    const del = await request(system.gateway).delete(`/v1/recurrences/${id}`).set('Authorization', auth);
    expect(del.status).toBe(204);
    const rows = await occurrences(id);
    expect(rows.map((row) => row.status)).toEqual(['canceled', 'canceled']);
    const rec = await getRecurrence(auth, id);
    expect(rec.body).toMatchObject({ status: 'cancelled', next_occurrences: [] });
    expect(rec.body.cancelled_at).toEqual(expect.any(String));
  });

  it('respects until: no occurrence after it', async () => {
    const { auth, x } = await newOrg();
    const until = new Date(Date.now() + 50 * 3600_000).toISOString();
    const res = await create(auth, recurring(x, { until }));
    expect(res.status).toBe(202);
    const rec = await getRecurrence(auth, res.body.recurrence_id);
    expect(rec.body.next_occurrences.length).toBeGreaterThanOrEqual(2);
    expect(rec.body.next_occurrences.length).toBeLessThanOrEqual(3);
    expect(rec.body.next_occurrences.every((at: string) => at <= until)).toBe(true);
    const rows = await settled(res.body.recurrence_id, rec.body.next_occurrences.length);
    expect(rows.every((row) => row.scheduled_at.toISOString() <= until)).toBe(true);
  });

  it('refuses bad rules and combinations with a 400 naming the rule', async () => {
    const { auth, x } = await newOrg();
    const cases: [Record<string, unknown>, string, string][] = [
      [recurring(x, { timezone: 'Mars/Olympus_Mons' }), '/body/recurrence/timezone', 'timezone_invalid'],
      [
        recurring(x, { until: new Date(Date.now() + 86_400_000).toISOString(), count: 2 }),
        '/body/recurrence/count',
        'until_with_count',
      ],
      [recurring(x, { until: '2020-01-01T00:00:00Z' }), '/body/recurrence/until', 'until_not_future'],
      [
        { ...recurring(x), scheduled_at: new Date(Date.now() + 3600_000).toISOString() },
        '/body/recurrence',
        'recurrence_with_scheduled_at',
      ],
      [{ ...recurring(x), queue: true }, '/body/recurrence', 'recurrence_with_queue'],
    ];
    for (const [body, path, rule] of cases) {
      const res = await create(auth, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path, rule })]));
    }
    for (const rule of [{ count: 0 }, { count: 521 }, { days: ['someday'] }, { time: '25:00' }, { freq: 'daily' }]) {
      const res = await create(auth, recurring(x, rule));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});
