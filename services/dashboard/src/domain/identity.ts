import { hmacHex } from '@svc/crypto';
import type { InvitesRepository } from '../data/invites.repository.ts';
import type { OrganizationsRepository, Role } from '../data/organizations.repository.ts';
import type { SessionsRepository } from '../data/sessions.repository.ts';
import type { UsersRepository } from '../data/users.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { newToken, tokenHash } from './secrets.ts';
import type { TokenMinter } from './token-minter.ts';

/** What the identity use cases stand on. */
export interface IdentityDeps {
  db: PrismaClient;
  users: UsersRepository;
  organizations: OrganizationsRepository;
  sessions: SessionsRepository;
  invites: InvitesRepository;
  throttle: LoginThrottle;
  minter: TokenMinter;
  sessionTtlMs: number;
  inviteTtlMs: number;
  now: () => Date;
}

/** A signed-in browser as the use cases see it: the raw token is only ever in the cookie. */
export interface CurrentSession {
  idHash: string;
  userId: string;
  activeOrgId: string | null;
}

/** What `/auth/me` (and sign-up, sign-in, switch-org) answers: never a JWT. */
export interface SessionView {
  user: { id: string; email: string };
  organizations: { id: string; name: string; role: Role }[];
  active_org_id: string | null;
  csrf_token: string;
}

/**
 * The session's CSRF token: an HMAC of the session token, so it needs no storage, changes with the
 * session, and cannot be computed by a page that cannot read the HttpOnly cookie.
 */
export function csrfTokenOf(sessionToken: string): string {
  return hmacHex(sessionToken, 'csrf-v1');
}

/** Starts a session for the user (the organization active first is given); returns the cookie's token. */
export async function startSession(
  deps: Pick<IdentityDeps, 'sessions' | 'sessionTtlMs' | 'now'>,
  userId: string,
  activeOrgId: string | null,
): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(deps.now().getTime() + deps.sessionTtlMs);
  await deps.sessions.create({ idHash: tokenHash(token), userId, activeOrgId, expiresAt });
  return { token, expiresAt };
}

export async function viewOf(
  deps: Pick<IdentityDeps, 'users' | 'organizations'>,
  session: { userId: string; activeOrgId: string | null },
  sessionToken: string,
): Promise<SessionView> {
  const [user, memberships] = await Promise.all([
    deps.users.findById(session.userId),
    deps.organizations.membershipsOf(session.userId),
  ]);
  const active = memberships.some((membership) => membership.orgId === session.activeOrgId)
    ? session.activeOrgId
    : null;
  return {
    user: { id: session.userId, email: user?.email ?? '' },
    organizations: memberships.map((membership) => ({
      id: membership.orgId,
      name: membership.orgName,
      role: membership.role,
    })),
    active_org_id: active,
    csrf_token: csrfTokenOf(sessionToken),
  };
}
