import type { CurrentSession, IdentityDeps } from './identity.ts';
import { tokenHash } from './secrets.ts';

/**
 * The live session a cookie's token names, or null. Its active organization is kept only while the
 * user is still a member (an owner may have removed them since).
 */
export async function resolveSession(
  deps: Pick<IdentityDeps, 'sessions' | 'organizations' | 'now'>,
  token: string,
): Promise<CurrentSession | null> {
  const session = await deps.sessions.findLive(tokenHash(token), deps.now());
  if (session === null) return null;
  const stillMember =
    session.activeOrgId !== null && (await deps.organizations.roleOf(session.activeOrgId, session.userId)) !== null;
  return { idHash: session.idHash, userId: session.userId, activeOrgId: stillMember ? session.activeOrgId : null };
}
