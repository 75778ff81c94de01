import { randomBytes } from 'node:crypto';
import { Vault, VaultError, vaultFromConfig } from './vault.ts';
import { signToken, verifyToken } from './signed-token.ts';

const key = () => randomBytes(32).toString('base64');

describe('Vault', () => {
  it('round-trips and never shows the plaintext in the ciphertext', () => {
    const vault = vaultFromConfig(`k1:${key()}`);
    const secret = 'EAAB-access-token-value';
    const sealed = vault.encrypt(secret, 'account:1:access');
    expect(sealed).toMatch(/^v1\.k1\./);
    expect(sealed).not.toContain(secret);
    expect(vault.decrypt(sealed, 'account:1:access')).toBe(secret);
    expect(vault.encrypt(secret, 'account:1:access')).not.toBe(sealed);
  });

  it('refuses another owner, altered data and unknown keys', () => {
    const vault = vaultFromConfig(`k1:${key()}`);
    const sealed = vault.encrypt('token', 'account:1:access');
    expect(() => vault.decrypt(sealed, 'account:2:access')).toThrow(VaultError);
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => vault.decrypt(parts.join('.'), 'account:1:access')).toThrow(VaultError);
    expect(() => vaultFromConfig(`k9:${key()}`).decrypt(sealed, 'account:1:access')).toThrow(/k1/);
    expect(() => vault.decrypt('plain-text', 'x')).toThrow(/format/);
  });

  it('refuses a truncated tag or an IV of another length', () => {
    const vault = vaultFromConfig(`k1:${key()}`);
    const parts = vault.encrypt('token', 'account:1:access').split('.');
    // The first 4 bytes of the real tag: GCM would verify only those and decrypt.
    const truncated = [...parts];
    truncated[3] = Buffer.from(parts[3]!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => vault.decrypt(truncated.join('.'), 'account:1:access')).toThrow(/16-byte tag/);
    const shortIv = [...parts];
    shortIv[2] = Buffer.from(parts[2]!, 'base64url').subarray(0, 8).toString('base64url');
    expect(() => vault.decrypt(shortIv.join('.'), 'account:1:access')).toThrow(/12-byte IV/);
  });

  it('rotates: old keys still decrypt, the newest encrypts, reencrypt moves a value', () => {
    const k1 = key();
    const old = vaultFromConfig(`k1:${k1}`);
    const sealed = old.encrypt('token', 'a');
    const rotated = vaultFromConfig(`k1:${k1},k2:${key()}`);
    expect(rotated.activeKeyId).toBe('k2');
    expect(rotated.decrypt(sealed, 'a')).toBe('token');
    expect(rotated.needsReencryption(sealed)).toBe(true);
    const moved = rotated.reencrypt(sealed, 'a');
    expect(rotated.keyIdOf(moved)).toBe('k2');
    expect(rotated.needsReencryption(moved)).toBe(false);
    expect(rotated.decrypt(moved, 'a')).toBe('token');
  });

  it('reseals: under the active key and the new binding, from a former binding, and nothing when current', () => {
    const k1 = key();
    const vault = vaultFromConfig(`k1:${k1}`);
    const current = vault.encrypt('token', 'org:o1:account:1');
    expect(vault.reseal(current, 'org:o1:account:1', 'account:1')).toBeUndefined();
    const former = vault.encrypt('token', 'account:1');
    const resealed = vault.reseal(former, 'org:o1:account:1', 'account:1')!;
    expect(vault.decrypt(resealed, 'org:o1:account:1')).toBe('token');
    expect(() => vault.decrypt(resealed, 'account:1')).toThrow(VaultError);
    // Another owner's ciphertext opens under neither binding.
    expect(() => vault.reseal(vault.encrypt('token', 'account:2'), 'org:o1:account:1', 'account:1')).toThrow(
      VaultError,
    );
    const rotated = vaultFromConfig(`k1:${k1},k2:${key()}`);
    expect(rotated.keyIdOf(rotated.reseal(current, 'org:o1:account:1')!)).toBe('k2');
  });

  it('rejects bad key material with a clear message', () => {
    expect(() => vaultFromConfig('k1:c2hvcnQ=')).toThrow(/32 bytes/);
    expect(() => vaultFromConfig('nonsense')).toThrow(/<id>:<base64 key>/);
    expect(() => vaultFromConfig(`k1:${key()}`, 'k2')).toThrow(/active vault key/);
    expect(() => new Vault(new Map(), 'k1')).toThrow(VaultError);
  });
});

describe('signed tokens', () => {
  it('verifies its own tokens and rejects tampering', () => {
    const token = signToken({ org: 'o1', n: 1 }, 'key-1');
    expect(verifyToken(token, 'key-1')).toEqual({ org: 'o1', n: 1 });
    expect(verifyToken(token, 'key-2')).toBeUndefined();
    const [body, sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ org: 'o2', n: 1 })).toString('base64url');
    expect(verifyToken(`${forged}.${sig}`, 'key-1')).toBeUndefined();
    expect(verifyToken(`${body}`, 'key-1')).toBeUndefined();
    expect(verifyToken('a.b.c', 'key-1')).toBeUndefined();
  });
});
