import request from 'supertest';
import { signUp, startDashboard, type DashboardHarness } from './dashboard-harness.ts';

let h: DashboardHarness;
beforeAll(async () => {
  h = await startDashboard();
}, 60_000);
afterAll(() => h?.close());

async function invite(owner: Awaited<ReturnType<typeof signUp>>, role = 'member') {
  const res = await owner.post('/auth/invites', { role });
  expect(res.status).toBe(201);
  return res.body as { token: string; url: string; org_id: string; expires_at: string };
}

describe('invites', () => {
  it('adds a member once: a second use of the link is refused, and the token is stored hashed', async () => {
    const owner = await signUp(h.app);
    const link = await invite(owner);
    expect(link.url).toBe(`https://dashboard.test.local/invites/${link.token}`);
    const stored = await h.db.invite.findMany({ where: { orgId: link.org_id } });
    expect(JSON.stringify(stored)).not.toContain(link.token);

    const joiner = await signUp(h.app);
    const accepted = await joiner.post('/auth/invites/accept', { token: link.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.active_org_id).toBe(link.org_id);
    expect(accepted.body.organizations).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: link.org_id, role: 'member' })]),
    );
    const third = await signUp(h.app);
    const again = await third.post('/auth/invites/accept', { token: link.token });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
  });

  it('lets a new user sign up through an invite, joining instead of creating an organization', async () => {
    const owner = await signUp(h.app);
    const link = await invite(owner, 'owner');
    const joiner = await signUp(h.app, undefined, { invite_token: link.token });
    expect(joiner.body.organizations).toEqual([expect.objectContaining({ id: link.org_id, role: 'owner' })]);
  });

  it('refuses an expired invite', async () => {
    const owner = await signUp(h.app);
    const link = await invite(owner);
    const joiner = await signUp(h.app);
    const started = h.clock.now;
    try {
      h.clock.now = new Date(new Date(link.expires_at).getTime() + 1000);
      expect((await joiner.post('/auth/invites/accept', { token: link.token })).status).toBe(404);
    } finally {
      h.clock.now = started;
    }
  });

  it('lets only an owner invite', async () => {
    const owner = await signUp(h.app);
    const member = await signUp(h.app);
    await member.post('/auth/invites/accept', { token: (await invite(owner)).token });
    const res = await member.post('/auth/invites', {});
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/owner/);
  });
});

describe('members', () => {
  it('lets an owner remove a member, and refuses a member removing anyone', async () => {
    const owner = await signUp(h.app);
    const a = await signUp(h.app);
    const b = await signUp(h.app);
    for (const joiner of [a, b]) await joiner.post('/auth/invites/accept', { token: (await invite(owner)).token });
    const orgId = owner.body.active_org_id!;
    const listed = await a.get('/auth/members');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((m: { user_id: string }) => m.user_id)).toEqual([
      owner.body.user.id,
      a.body.user.id,
      b.body.user.id,
    ]);

    const refused = await a.delete(`/auth/members/${b.body.user.id}`);
    expect(refused.status).toBe(403);
    expect((await a.delete(`/auth/members/${owner.body.user.id}`)).status).toBe(403);

    expect((await owner.delete(`/auth/members/${a.body.user.id}`)).status).toBe(204);
    expect((await owner.delete(`/auth/members/${a.body.user.id}`)).status).toBe(404);
    // The removed member's session no longer acts for the organization.
    const me = await a.get('/auth/me');
    expect(me.body.active_org_id).not.toBe(orgId);
    expect(me.body.organizations.map((o: { id: string }) => o.id)).not.toContain(orgId);
    expect((await a.get('/auth/members')).status).toBe(403);
  });

  it('keeps the last owner', async () => {
    const owner = await signUp(h.app);
    const res = await owner.delete(`/auth/members/${owner.body.user.id}`);
    expect(res.status).toBe(409);
  });
});

describe('switching organizations', () => {
  it('switches between the organizations the user belongs to, and refuses others', async () => {
    const user = await signUp(h.app);
    const other = await signUp(h.app);
    await user.post('/auth/invites/accept', { token: (await invite(other)).token });
    const own = user.body.organizations[0]!.id;
    const switched = await user.post('/auth/switch-org', { org_id: own });
    expect(switched.status).toBe(200);
    expect(switched.body.active_org_id).toBe(own);
    expect((await user.get('/auth/me')).body.active_org_id).toBe(own);
    const stranger = await signUp(h.app);
    const refused = await user.post('/auth/switch-org', { org_id: stranger.body.active_org_id });
    expect(refused.status).toBe(403);
    expect((await user.post('/auth/switch-org', { org_id: 'bad id!' })).status).toBe(400);
    expect((await request(h.app).post('/auth/switch-org').send({ org_id: own })).status).toBe(401);
  });
});
