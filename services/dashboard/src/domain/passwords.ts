import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id`: the library's enum is a const enum, which isolated modules cannot read. */
const ARGON2ID = 2;

/**
 * argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's minimum for argon2id);
 * the PHC string carries its parameters, so raising them later still verifies older hashes.
 */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

/** A hash of nothing anyone knows, verified when the email is unknown so both answers take as long. */
let decoy: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | undefined, password: string): Promise<boolean> {
  if (passwordHash === undefined) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
