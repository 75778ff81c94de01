import { randomBytes } from 'node:crypto';
import type { IdentityDeps } from './identity.ts';
import { hashPassword } from './passwords.ts';
import { newId } from './secrets.ts';

export const DEMO_EMAIL = 'demo@example.com';
/**
 * The demo organization's id: the one `POST /v1/dev/token` defaults to and the development seed gives
 * a sandbox account per network (scripts/seed-demo.mjs), so the demo user finds them connected.
 */
export const DEMO_ORG_ID = 'org_dev';

/**
 * Development only: the demo user and organization, made on the first start. Returns the
 * credentials when it made them (the password is known only then, unless DEMO_PASSWORD sets it),
 * null when the user already exists.
 */
export async function seedDemo(
  deps: Pick<IdentityDeps, 'db' | 'users' | 'organizations'>,
  password?: string,
): Promise<{ email: string; password: string; orgId: string } | null> {
  if ((await deps.users.findByEmail(DEMO_EMAIL)) !== null) return null;
  const chosen = password ?? randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(chosen);
  const userId = newId('usr');
  await deps.db.$transaction(async (tx) => {
    await deps.users.create({ id: userId, email: DEMO_EMAIL, passwordHash }, tx);
    await deps.organizations.create({ id: DEMO_ORG_ID, name: 'Demo organization' }, tx);
    await deps.organizations.addMember(DEMO_ORG_ID, userId, 'owner', tx);
  });
  return { email: DEMO_EMAIL, password: chosen, orgId: DEMO_ORG_ID };
}
