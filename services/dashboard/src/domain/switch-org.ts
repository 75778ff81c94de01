import { dashboardErrors } from './errors.ts';
import type { CurrentSession, IdentityDeps } from './identity.ts';

/** Makes another of the user's organizations the one `/api/*` acts for. */
export async function switchOrg(
  deps: Pick<IdentityDeps, 'sessions' | 'organizations'>,
  session: CurrentSession,
  orgId: string,
): Promise<CurrentSession> {
  if ((await deps.organizations.roleOf(orgId, session.userId)) === null) throw dashboardErrors.notAMember();
  await deps.sessions.setActiveOrg(session.idHash, orgId);
  return { ...session, activeOrgId: orgId };
}
