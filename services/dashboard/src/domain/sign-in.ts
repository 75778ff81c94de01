import { dashboardErrors } from './errors.ts';
import { startSession, type IdentityDeps } from './identity.ts';
import { verifyPassword } from './passwords.ts';

export interface SignInInput {
  email: string;
  password: string;
  address: string;
}

/**
 * Checks the password (throttled per address and per account before the check) and starts a
 * session on the user's first organization. An unknown email and a wrong password answer alike.
 */
export async function signIn(deps: IdentityDeps, input: SignInInput): Promise<{ token: string; userId: string }> {
  const email = input.email.trim().toLowerCase();
  await deps.throttle.admitSignIn(input.address, email);
  const user = await deps.users.findByEmail(email);
  if (!(await verifyPassword(user?.passwordHash, input.password)) || user === null) {
    await deps.throttle.failed(input.address, email);
    throw dashboardErrors.wrongCredentials();
  }
  await deps.throttle.succeeded(email);
  const memberships = await deps.organizations.membershipsOf(user.id);
  const { token } = await startSession(deps, user.id, memberships[0]?.orgId ?? null);
  return { token, userId: user.id };
}
