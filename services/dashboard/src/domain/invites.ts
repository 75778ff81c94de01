import type { Role } from '../data/organizations.repository.ts';
import { dashboardErrors } from './errors.ts';
import type { CurrentSession, IdentityDeps } from './identity.ts';
import { newId, newToken, tokenHash } from './secrets.ts';

/** An owner invites someone to the active organization: a single-use token, shown once, stored hashed. */
export async function createInvite(
  deps: Pick<IdentityDeps, 'organizations' | 'invites' | 'inviteTtlMs' | 'now'>,
  session: CurrentSession,
  role: Role,
): Promise<{ id: string; token: string; orgId: string; role: Role; expiresAt: Date }> {
  const orgId = session.activeOrgId;
  if (orgId === null) throw dashboardErrors.noActiveOrg();
  if ((await deps.organizations.roleOf(orgId, session.userId)) !== 'owner')
    throw dashboardErrors.ownerOnly('invite members');
  const token = newToken();
  const id = newId('inv');
  const expiresAt = new Date(deps.now().getTime() + deps.inviteTtlMs);
  await deps.invites.create({ id, tokenHash: tokenHash(token), orgId, role, createdBy: session.userId, expiresAt });
  return { id, token, orgId, role, expiresAt };
}

/** A signed-in user accepts an invite: they join its organization, which becomes their active one. */
export async function acceptInvite(
  deps: Pick<IdentityDeps, 'db' | 'organizations' | 'invites' | 'sessions' | 'now'>,
  session: CurrentSession,
  token: string,
): Promise<CurrentSession> {
  const orgId = await deps.db.$transaction(async (tx) => {
    const invite = await deps.invites.consume(tokenHash(token), session.userId, deps.now(), tx);
    if (invite === null) throw dashboardErrors.inviteUnusable();
    await deps.organizations.addMember(invite.orgId, session.userId, invite.role, tx);
    return invite.orgId;
  });
  await deps.sessions.setActiveOrg(session.idHash, orgId);
  return { ...session, activeOrgId: orgId };
}
