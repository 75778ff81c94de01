import type { CurrentSession, IdentityDeps } from './identity.ts';

/** Ends this session. */
export async function signOut(deps: Pick<IdentityDeps, 'sessions'>, session: CurrentSession): Promise<void> {
  await deps.sessions.delete(session.idHash);
}

/** Ends every session of the user, on every device, and drops their cached JWTs. */
export async function signOutEverywhere(
  deps: Pick<IdentityDeps, 'sessions' | 'minter'>,
  session: CurrentSession,
): Promise<{ ended: number }> {
  const ended = await deps.sessions.deleteAllOf(session.userId);
  deps.minter.forget(session.userId);
  return { ended };
}
