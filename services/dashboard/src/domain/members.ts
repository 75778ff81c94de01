import type { MemberView } from '../data/organizations.repository.ts';
import { dashboardErrors } from './errors.ts';
import type { CurrentSession, IdentityDeps } from './identity.ts';

function activeOrgOf(session: CurrentSession): string {
  if (session.activeOrgId === null) throw dashboardErrors.noActiveOrg();
  return session.activeOrgId;
}

/** The members of the active organization, for any member of it. */
export async function listMembers(
  deps: Pick<IdentityDeps, 'organizations'>,
  session: CurrentSession,
): Promise<MemberView[]> {
  return deps.organizations.members(activeOrgOf(session));
}

/**
 * An owner removes a member of the active organization (themselves included, unless they are its
 * last owner). The member's sessions lose that organization at their next request.
 */
export async function removeMember(
  deps: Pick<IdentityDeps, 'organizations' | 'minter'>,
  session: CurrentSession,
  userId: string,
): Promise<void> {
  const orgId = activeOrgOf(session);
  if ((await deps.organizations.roleOf(orgId, session.userId)) !== 'owner')
    throw dashboardErrors.ownerOnly('remove members');
  const members = await deps.organizations.members(orgId);
  const target = members.find((member) => member.userId === userId);
  if (target === undefined) throw dashboardErrors.memberNotFound();
  if (target.role === 'owner' && members.filter((member) => member.role === 'owner').length === 1)
    throw dashboardErrors.lastOwner();
  await deps.organizations.removeMember(orgId, userId);
  deps.minter.forget(userId);
}
