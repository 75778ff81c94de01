import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal, type PostBody } from './publishing-support.ts';

const MONTHLY_POSTS = 3;
type Draft = PostBody & { version?: number; text: string; scheduled_at: string | null };

/**
 * Drafts end to end (docs/api-conventions.md, "Drafts"): kept unsent and uncounted, edited under
 * optimistic concurrency, published through the same checks and delivery as a create, deleted only
 * while a draft, listed only when asked for, and invisible to other organizations.
 */
describe('publishing: drafts', () => {
  let system: SystemHarness;
  let auth: string;
  let x: string;
  let linkedin: string;
  let orgSeq = 0;

  const newOrg = async () => {
    const token = `Bearer ${await system.token(uniqueName(`org_drafts_${orgSeq++}`))}`;
    return { auth: token, x: await connectAccount(system, token, 'x') };
  };
  const createDraft = async (body: Record<string, unknown>, credential = auth) =>
    request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', credential)
      .send({ ...body, draft: true });

  beforeAll(async () => {
    system = await startSystem({
      services: ['accounts', 'publisher', 'scheduler'],
      env: { PLAN_FREE_POSTS_PER_MONTH: String(MONTHLY_POSTS) },
    });
    ({ auth, x } = await newOrg());
    linkedin = await connectAccount(system, auth, 'linkedin');
  }, 90_000);

  afterAll(async () => system?.close(), 60_000);

  it('keeps a draft unsent, edits it with a version check, and publishes it to the network', async () => {
    const text = uniqueName('draft one');
    const created = await createDraft({ account_ids: [x], text });
    expect(created.status).toBe(201);
    const draft = created.body as Draft;
    expect(draft).toEqual(expect.objectContaining({ status: 'draft', text, version: 1, results: [] }));

    const edited = await request(system.gateway)
      .patch(`/v1/posts/${draft.id}`)
      .set('Authorization', auth)
      .set('If-Match', '"1"')
      .send({ text: `${text} edited`, account_ids: [x, linkedin] });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual(
      expect.objectContaining({ status: 'draft', text: `${text} edited`, version: 2, account_ids: [x, linkedin] }),
    );

    const stale = await request(system.gateway)
      .patch(`/v1/posts/${draft.id}`)
      .set('Authorization', auth)
      .send({ text: `${text} lost update`, version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('conflict');

    // Re-validated like a create: too long for X, named per account and rule.
    const invalid = await request(system.gateway)
      .patch(`/v1/posts/${draft.id}`)
      .set('Authorization', auth)
      .send({ text: 'y'.repeat(400) });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ account_id: x, rule: 'text_length' })]),
    );

    expect((await system.sandbox.posts('x')).filter((post) => post.text.startsWith(text))).toEqual([]);

    const published = await request(system.gateway).post(`/v1/posts/${draft.id}/publish`).set('Authorization', auth);
    expect(published.status).toBe(202);
    expect(published.body.id).toBe(draft.id);
    expect(published.body.status).toBe('queued');
    expect(published.body.version).toBeUndefined();

    const final = await waitForFinal(system, auth, draft.id);
    expect(final.status).toBe('published');
    expect((await system.sandbox.posts('x')).filter((post) => post.text === `${text} edited`)).toHaveLength(1);
    expect((await system.sandbox.posts('linkedin')).filter((post) => post.text === `${text} edited`)).toHaveLength(1);

    const again = await request(system.gateway).post(`/v1/posts/${draft.id}/publish`).set('Authorization', auth);
    expect(again.status).toBe(409);
    const edit = await request(system.gateway)
      .patch(`/v1/posts/${draft.id}`)
      .set('Authorization', auth)
      .send({ text: 'late' });
    expect(edit.status).toBe(409);
    const remove = await request(system.gateway).delete(`/v1/posts/${draft.id}`).set('Authorization', auth);
    expect(remove.status).toBe(409);
    expect(remove.body.error.code).toBe('conflict');
  });

  it('refuses a draft whose content would be refused, and deletes a draft (204)', async () => {
    const refused = await createDraft({ account_ids: [x], text: 'z'.repeat(400) });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ account_id: x, rule: 'text_length' })]),
    );
    const queued = await createDraft({ account_ids: [x], text: uniqueName('queued draft'), queue: true });
    expect(queued.status).toBe(400);
    expect(queued.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/body/queue', rule: 'queue_with_draft' })]),
    );
    const repeating = await createDraft({
      account_ids: [x],
      text: uniqueName('repeating draft'),
      recurrence: { freq: 'weekly', days: ['mon'], time: '09:00', timezone: 'Europe/Berlin', count: 2 },
    });
    expect(repeating.status).toBe(400);
    expect(repeating.body.error.details).toEqual([
      expect.objectContaining({ path: '/body/recurrence', rule: 'recurrence_with_draft' }),
    ]);

    const created = await createDraft({ account_ids: [x], text: uniqueName('to delete') });
    expect(created.status).toBe(201);
    const removed = await request(system.gateway).delete(`/v1/posts/${created.body.id}`).set('Authorization', auth);
    expect(removed.status).toBe(204);
    const gone = await request(system.gateway).get(`/v1/posts/${created.body.id}`).set('Authorization', auth);
    expect(gone.status).toBe(404);
  });

  it("publishes at the time given, replacing the draft's schedule", async () => {
    const created = await createDraft({ account_ids: [x], text: uniqueName('scheduled draft') });
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const published = await request(system.gateway)
      .post(`/v1/posts/${created.body.id}/publish`)
      .set('Authorization', auth)
      .send({ scheduled_at: at });
    expect(published.status).toBe(202);
    expect(published.body.status).toBe('scheduled');
    expect(new Date(published.body.scheduled_at as string).getTime()).toBe(new Date(at).getTime());
    const canceled = await request(system.gateway)
      .post(`/v1/posts/${created.body.id}/cancel`)
      .set('Authorization', auth);
    expect(canceled.status).toBe(200);
  });

  it('lists drafts only when status=draft is asked for', async () => {
    const org = await newOrg();
    const draft = await createDraft({ account_ids: [org.x], text: uniqueName('listed draft') }, org.auth);
    expect(draft.status).toBe(201);
    const post = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', org.auth)
      .send({ account_ids: [org.x], text: uniqueName('sent post') });
    expect(post.status).toBe(202);

    const all = await request(system.gateway).get('/v1/posts').set('Authorization', org.auth);
    expect(all.body.items.map((item: Draft) => item.id)).toEqual([post.body.id]);
    expect(all.body.total).toBe(1);
    const drafts = await request(system.gateway).get('/v1/posts?status=draft').set('Authorization', org.auth);
    expect(drafts.body.items.map((item: Draft) => item.id)).toEqual([draft.body.id]);
    expect(drafts.body.total).toBe(1);
  });

  it("answers 404 for another organization's draft on every endpoint", async () => {
    const draft = await createDraft({ account_ids: [x], text: uniqueName('private draft') });
    const other = await newOrg();
    const id = draft.body.id as string;
    const calls = [
      request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', other.auth),
      request(system.gateway).patch(`/v1/posts/${id}`).set('Authorization', other.auth).send({ text: 'hijack' }),
      request(system.gateway).post(`/v1/posts/${id}/publish`).set('Authorization', other.auth),
      request(system.gateway).delete(`/v1/posts/${id}`).set('Authorization', other.auth),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const mine = await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', auth);
    expect(mine.body).toEqual(expect.objectContaining({ status: 'draft', version: 1 }));
  });

  it('counts a draft against the monthly posts only when it is published (402 keeps the draft)', async () => {
    const org = await newOrg();
    const drafts: string[] = [];
    for (let n = 0; n <= MONTHLY_POSTS; n++) {
      const res = await createDraft({ account_ids: [org.x], text: uniqueName(`quota draft ${n}`) }, org.auth);
      expect(res.status).toBe(201);
      drafts.push(res.body.id as string);
    }
    const usage = await request(system.gateway).get('/v1/posts?status=draft').set('Authorization', org.auth);
    expect(usage.body.total).toBe(MONTHLY_POSTS + 1);
    for (const id of drafts.slice(0, MONTHLY_POSTS)) {
      const res = await request(system.gateway).post(`/v1/posts/${id}/publish`).set('Authorization', org.auth);
      expect(res.status).toBe(202);
    }
    const last = drafts[MONTHLY_POSTS]!;
    const over = await request(system.gateway).post(`/v1/posts/${last}/publish`).set('Authorization', org.auth);
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe('plan_limit_reached');
    const kept = await request(system.gateway).get(`/v1/posts/${last}`).set('Authorization', org.auth);
    expect(kept.body).toEqual(expect.objectContaining({ status: 'draft', version: 1, results: [] }));
  });
});
