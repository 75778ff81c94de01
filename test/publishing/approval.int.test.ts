import { createHmac } from 'node:crypto';
import { uniqueName } from '@svc/testing';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { connectAccount, waitForFinal } from './publishing-support.ts';

const SECRET = 'review-link-secret-for-tests-0123456789abcdef';

/** A token as the gateway signs them, for links the API would not hand out (one already expired). */
function forge(grant: { o: string; p: string; v: number; e: number }): string {
  const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
  return `${payload}.${createHmac('sha256', SECRET).update(payload).digest('base64url')}`;
}

/**
 * Approval of drafts end to end (docs/api-conventions.md, "Approval"): a draft asked for approval is
 * published only once approved; a dashboard user or a signed review link decides; an API key cannot
 * review; an edit or the expiry invalidates a link.
 */
describe('publishing: draft approval', () => {
  let system: SystemHarness;
  let orgId: string;
  let auth: string;
  let apiKey: string;
  let x: string;

  beforeAll(async () => {
    system = await startSystem({ services: ['accounts', 'publisher'], env: { REVIEW_LINK_SECRET: SECRET } });
    orgId = uniqueName('org_approval');
    auth = `Bearer ${await system.token(orgId)}`;
    apiKey = `Bearer ${await system.apiKey(orgId)}`;
    x = await connectAccount(system, auth, 'x');
  }, 90_000);

  afterAll(async () => system?.close(), 60_000);

  /** A draft (created with the API key) whose approval is pending. */
  const pendingDraft = async (text = uniqueName('for review')) => {
    const created = await request(system.gateway)
      .post('/v1/posts')
      .set('Authorization', apiKey)
      .send({ account_ids: [x], text, draft: true });
    expect(created.status).toBe(201);
    const asked = await request(system.gateway)
      .post(`/v1/posts/${created.body.id}/request-approval`)
      .set('Authorization', apiKey);
    expect(asked.status).toBe(200);
    expect(asked.body.approval).toEqual(
      expect.objectContaining({ status: 'pending', decided_at: null, decided_via: null, decided_by: null }),
    );
    return { id: created.body.id as string, text };
  };
  const reviewLink = async (id: string) => {
    const res = await request(system.gateway).post(`/v1/posts/${id}/review-links`).set('Authorization', apiKey);
    expect(res.status).toBe(201);
    const url = new URL(res.body.url as string);
    return url.pathname;
  };

  it('refuses to publish before approval, and publishes once a review link approved it', async () => {
    const { id, text } = await pendingDraft();
    const early = await request(system.gateway).post(`/v1/posts/${id}/publish`).set('Authorization', apiKey);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('conflict');
    expect(early.body.error.message).toContain('approval_required');

    const path = await reviewLink(id);
    const page = await request(system.gateway).get(path);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain(text);
    expect(page.text).toContain(x);

    const decided = await request(system.gateway)
      .post(path)
      .type('form')
      .send({ decision: 'approve', comment: 'Looks good <b>ship it</b>' });
    expect(decided.status).toBe(200);
    expect(decided.text).toContain('approved');

    const post = await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', apiKey);
    expect(post.body.approval).toEqual(
      expect.objectContaining({
        status: 'approved',
        decided_via: 'review_link',
        decided_by: null,
        comment: 'Looks good <b>ship it</b>',
      }),
    );
    // Used: the approval is no longer pending.
    expect((await request(system.gateway).get(path)).status).toBe(409);

    const published = await request(system.gateway).post(`/v1/posts/${id}/publish`).set('Authorization', apiKey);
    expect(published.status).toBe(202);
    expect((await waitForFinal(system, auth, id)).status).toBe('published');
  });

  it('lets a dashboard user review, never an API key; an edit asks for approval again', async () => {
    const { id } = await pendingDraft();
    const byKey = await request(system.gateway)
      .post(`/v1/posts/${id}/review`)
      .set('Authorization', apiKey)
      .send({ decision: 'approve' });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe('forbidden');

    const changes = await request(system.gateway)
      .post(`/v1/posts/${id}/review`)
      .set('Authorization', auth)
      .send({ decision: 'request_changes', comment: 'Shorter, please.' });
    expect(changes.status).toBe(200);
    expect(changes.body.approval).toEqual(
      expect.objectContaining({ status: 'changes_requested', decided_via: 'dashboard', comment: 'Shorter, please.' }),
    );
    expect(changes.body.approval.decided_by).toEqual(expect.any(String));
    const blocked = await request(system.gateway).post(`/v1/posts/${id}/publish`).set('Authorization', apiKey);
    expect(blocked.status).toBe(409);

    const edited = await request(system.gateway)
      .patch(`/v1/posts/${id}`)
      .set('Authorization', apiKey)
      .send({ text: 'Short.' });
    expect(edited.status).toBe(200);
    expect(edited.body.approval.status).toBe('pending');
    const approved = await request(system.gateway)
      .post(`/v1/posts/${id}/review`)
      .set('Authorization', auth)
      .send({ decision: 'approve' });
    expect(approved.body.approval.status).toBe('approved');
  });

  it('refuses a link once the draft was edited (409) or the link expired (410), and a forged one (404)', async () => {
    const { id } = await pendingDraft();
    const path = await reviewLink(id);
    const edited = await request(system.gateway)
      .patch(`/v1/posts/${id}`)
      .set('Authorization', apiKey)
      .send({ text: 'changed' });
    expect(edited.status).toBe(200);
    const stale = await request(system.gateway).post(path).type('form').send({ decision: 'approve' });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('conflict');
    expect((await request(system.gateway).get(path)).status).toBe(409);

    const version = edited.body.version as number;
    const expired = forge({ o: orgId, p: id, v: version, e: Math.floor(Date.now() / 1000) - 60 });
    const gone = await request(system.gateway).get(`/v1/review/${expired}`);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('link_expired');

    const valid = forge({ o: orgId, p: id, v: version, e: Math.floor(Date.now() / 1000) + 600 });
    const tampered = `${valid.split('.')[0]}.${Buffer.alloc(32).toString('base64url')}`;
    expect((await request(system.gateway).get(`/v1/review/${tampered}`)).status).toBe(404);
    // Another organization's id under a validly signed token finds nothing.
    const foreign = forge({ o: uniqueName('org_other'), p: id, v: version, e: Math.floor(Date.now() / 1000) + 600 });
    expect((await request(system.gateway).get(`/v1/review/${foreign}`)).status).toBe(404);

    const post = await request(system.gateway).get(`/v1/posts/${id}`).set('Authorization', apiKey);
    expect(post.body.approval.status).toBe('pending');
  });

  it("answers 404 for another organization's draft", async () => {
    const { id } = await pendingDraft();
    const other = `Bearer ${await system.token(uniqueName('org_approval_other'))}`;
    const calls = [
      request(system.gateway).post(`/v1/posts/${id}/request-approval`).set('Authorization', other),
      request(system.gateway).post(`/v1/posts/${id}/review`).set('Authorization', other).send({ decision: 'approve' }),
      request(system.gateway).post(`/v1/posts/${id}/review-links`).set('Authorization', other),
    ];
    for (const res of await Promise.all(calls)) expect(res.status).toBe(404);
  });
});
