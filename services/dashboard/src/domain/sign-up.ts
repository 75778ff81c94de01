import { Prisma } from '../generated/prisma/client.ts';
import { dashboardErrors } from './errors.ts';
import { startSession, type IdentityDeps } from './identity.ts';
import { hashPassword } from './passwords.ts';
import { newId, tokenHash } from './secrets.ts';

export interface SignUpInput {
  email: string;
  password: string;
  /** The organization the user creates; ignored when joining with an invite. */
  organizationName?: string | undefined;
  /** Joins the invite's organization instead of creating one. */
  inviteToken?: string | undefined;
  address: string;
}

/**
 * Creates the user and, in one transaction, either their first organization (they are its owner) or
 * their membership through an invite; then signs them in.
 */
export async function signUp(deps: IdentityDeps, input: SignUpInput): Promise<{ token: string; userId: string }> {
  await deps.throttle.admitSignUp(input.address);
  const email = input.email.trim().toLowerCase();
  if ((await deps.users.findByEmail(email)) !== null) throw dashboardErrors.emailTaken();
  const passwordHash = await hashPassword(input.password);
  const userId = newId('usr');
  let activeOrgId: string;
  try {
    activeOrgId = await deps.db.$transaction(async (tx) => {
      await deps.users.create({ id: userId, email, passwordHash }, tx);
      if (input.inviteToken !== undefined) {
        const invite = await deps.invites.consume(tokenHash(input.inviteToken), userId, deps.now(), tx);
        if (invite === null) throw dashboardErrors.inviteUnusable();
        await deps.organizations.addMember(invite.orgId, userId, invite.role, tx);
        return invite.orgId;
      }
      const orgId = newId('org');
      await deps.organizations.create({ id: orgId, name: input.organizationName ?? `${email}'s organization` }, tx);
      await deps.organizations.addMember(orgId, userId, 'owner', tx);
      return orgId;
    });
  } catch (error) {
    // Two sign-ups with one email at once: the unique index decides, the loser hears it is taken.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
      throw dashboardErrors.emailTaken();
    throw error;
  }
  const { token } = await startSession(deps, userId, activeOrgId);
  return { token, userId };
}
