import type { Vault } from '@svc/crypto';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, type KeyLike } from 'jose';
import type { SigningKeyRecord, SigningKeysRepository } from '../data/signing-keys.repository.ts';
import { newId } from './secrets.ts';

export interface KeyRingOptions {
  keys: SigningKeysRepository;
  vault: Vault;
  /** A key signs for this long before the next one is made. */
  rotationMs: number;
  /** A new key is published this long before it signs. */
  publishAheadMs: number;
  now?: () => Date;
}

export interface ActiveKey {
  kid: string;
  privateKey: KeyLike;
}

const ALG = 'ES256';
const aad = (kid: string) => `signing-key:${kid}`;

/**
 * The dashboard's ES256 signing keys, in generations. The signing key is the newest generation whose
 * `activates_at` has passed; a newer one is "next" (published, not signing yet: a gateway fetches
 * the JWKS at most every 30 s, so it must have the key before any token names it), and the one
 * before the signing key is "previous" (published, so tokens it signed stay valid until their `exp`,
 * at most 15 minutes). Older generations are deleted. State lives in the database, so every replica
 * signs with the same key and publishes the same set.
 */
export class KeyRing {
  private readonly imported = new Map<string, Promise<KeyLike>>();
  private readonly now: () => Date;

  constructor(private readonly options: KeyRingOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Makes the first key (signing at once) when there is none, and the next one when the signing key
   * is older than the rotation period; forgets generations older than the previous one.
   */
  async rotateIfDue(): Promise<void> {
    const now = this.now();
    const keys = await this.options.keys.all();
    const newest = keys.at(-1);
    if (newest === undefined) {
      await this.create(1, now);
      return;
    }
    const current = this.signing(keys, now);
    const hasNext = newest.activatesAt > now;
    if (!hasNext && current !== undefined && now.getTime() - current.activatesAt.getTime() >= this.options.rotationMs)
      await this.create(newest.generation + 1, new Date(now.getTime() + this.options.publishAheadMs));
    await this.forgetOld(keys, now);
  }

  /** Starts a rotation now, whatever the signing key's age: the new key signs after the publish-ahead delay. */
  async rotateNow(): Promise<string> {
    const now = this.now();
    const keys = await this.options.keys.all();
    const generation = (keys.at(-1)?.generation ?? 0) + 1;
    return this.create(generation, new Date(now.getTime() + this.options.publishAheadMs));
  }

  /** The public keys to publish: next, signing and previous. */
  async published(): Promise<JWK[]> {
    const now = this.now();
    const keys = await this.options.keys.all();
    const current = this.signing(keys, now);
    return keys
      .filter((key) => current === undefined || key.generation >= current.generation - 1)
      .map((key) => key.publicJwk as unknown as JWK);
  }

  async active(): Promise<ActiveKey> {
    const keys = await this.options.keys.all();
    const current = this.signing(keys, this.now());
    if (current === undefined) throw new Error('no signing key is active yet (rotateIfDue makes the first)');
    let privateKey = this.imported.get(current.kid);
    if (privateKey === undefined) {
      privateKey = importPKCS8(this.options.vault.decrypt(current.privateKeyEnc, aad(current.kid)), ALG);
      this.imported.set(current.kid, privateKey);
    }
    return { kid: current.kid, privateKey: await privateKey };
  }

  private signing(keys: SigningKeyRecord[], now: Date): SigningKeyRecord | undefined {
    return keys.filter((key) => key.activatesAt <= now).at(-1);
  }

  private async create(generation: number, activatesAt: Date): Promise<string> {
    const kid = newId('key');
    const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    await this.options.keys.insert({
      kid,
      generation,
      privateKeyEnc: this.options.vault.encrypt(await exportPKCS8(privateKey), aad(kid)),
      publicJwk,
      activatesAt,
    });
    return kid;
  }

  private async forgetOld(keys: SigningKeyRecord[], now: Date): Promise<void> {
    const current = this.signing(keys, now);
    if (current !== undefined && current.generation > 2) await this.options.keys.deleteBefore(current.generation - 1);
    for (const kid of this.imported.keys())
      if (!keys.some((key) => key.kid === kid && current !== undefined && key.generation >= current.generation - 1))
        this.imported.delete(kid);
  }
}
