import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
/** GCM accepts tags as short as 4 bytes unless told otherwise: a truncated tag is far easier to forge. */
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export class VaultError extends Error {
  override name = 'VaultError';
}

/**
 * AES-256-GCM encryption of secrets at rest (OAuth tokens, client secrets, webhook signing secrets).
 * A ciphertext is `v1.<key id>.<iv>.<tag>.<data>` (base64url), so keys can rotate: the active key
 * encrypts, every configured key decrypts, and `needsReencryption` finds rows to move to the active
 * key. The associated data binds a ciphertext to its owner and purpose (e.g. `account:<id>:access`),
 * so a ciphertext copied into another row does not decrypt.
 */
export class Vault {
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(
    keys: ReadonlyMap<string, Buffer>,
    readonly activeKeyId: string,
  ) {
    for (const [id, key] of keys) {
      if (!KEY_ID.test(id)) throw new VaultError(`Vault key id "${id}" must be 1 to 32 letters, digits, "_" or "-".`);
      if (key.length !== KEY_BYTES)
        throw new VaultError(`Vault key "${id}" must be 32 bytes (base64 of 32 random bytes).`);
    }
    if (!keys.has(activeKeyId))
      throw new VaultError(`The active vault key "${activeKeyId}" is not among the configured keys.`);
    this.keys = keys;
  }

  encrypt(plaintext: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.activeKeyId)!, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      this.activeKeyId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join('.');
  }

  decrypt(ciphertext: string, associatedData: string): string {
    const [version, keyId, iv, tag, data, ...rest] = ciphertext.split('.');
    if (
      version !== VERSION ||
      keyId === undefined ||
      iv === undefined ||
      tag === undefined ||
      data === undefined ||
      rest.length > 0
    ) {
      throw new VaultError('The ciphertext is not in the vault format.');
    }
    const key = this.keys.get(keyId);
    if (key === undefined)
      throw new VaultError(`The ciphertext was made with vault key "${keyId}", which is not configured.`);
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
      throw new VaultError(`The ciphertext must carry a ${IV_BYTES}-byte IV and a ${TAG_BYTES}-byte tag.`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new VaultError('The ciphertext could not be decrypted (wrong key, altered data or another owner).', {
        cause: error,
      });
    }
  }

  keyIdOf(ciphertext: string): string | undefined {
    return ciphertext.split('.')[1];
  }

  needsReencryption(ciphertext: string): boolean {
    return this.keyIdOf(ciphertext) !== this.activeKeyId;
  }

  /** Decrypts with whichever key made it and encrypts under the active key. */
  reencrypt(ciphertext: string, associatedData: string): string {
    return this.encrypt(this.decrypt(ciphertext, associatedData), associatedData);
  }

  /**
   * The ciphertext under the active key and `associatedData`, or undefined when it already is. One
   * sealed with `formerAssociatedData` (an owner's earlier binding, e.g. before it named the
   * organization) is opened with that and sealed anew; anything else that does not open throws.
   */
  reseal(ciphertext: string, associatedData: string, formerAssociatedData?: string): string | undefined {
    let plaintext: string;
    try {
      plaintext = this.decrypt(ciphertext, associatedData);
      if (!this.needsReencryption(ciphertext)) return undefined;
    } catch (error) {
      if (formerAssociatedData === undefined) throw error;
      plaintext = this.decrypt(ciphertext, formerAssociatedData);
    }
    return this.encrypt(plaintext, associatedData);
  }
}

/**
 * Parses `VAULT_KEYS` ("k1:<base64>,k2:<base64>", each key 32 random bytes) and the active key id
 * (default: the last key listed, i.e. the newest).
 */
export function vaultFromConfig(keys: string, activeKeyId?: string): Vault {
  const map = new Map<string, Buffer>();
  for (const entry of keys
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const separator = entry.indexOf(':');
    if (separator <= 0) throw new VaultError('VAULT_KEYS entries must look like "<id>:<base64 key>".');
    const id = entry.slice(0, separator);
    if (map.has(id)) throw new VaultError(`VAULT_KEYS names key "${id}" twice.`);
    map.set(id, Buffer.from(entry.slice(separator + 1), 'base64'));
  }
  const ids = [...map.keys()];
  if (ids.length === 0) throw new VaultError('VAULT_KEYS holds no key.');
  return new Vault(map, activeKeyId ?? ids[ids.length - 1]!);
}
