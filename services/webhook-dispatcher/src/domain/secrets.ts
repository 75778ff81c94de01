import type { Vault } from '@svc/crypto';

/**
 * Signing secrets at rest: vault ciphertexts bound by associated data to their endpoint and slot, so
 * a ciphertext copied to another row or slot does not decrypt. Plaintexts live only for one signing.
 */
export class SecretBox {
  constructor(private readonly vault: Vault) {}

  seal(endpointId: string, slot: 'current' | 'previous', secret: string): string {
    return this.vault.encrypt(secret, aad(endpointId, slot));
  }

  open(endpointId: string, slot: 'current' | 'previous', ciphertext: string): string {
    return this.vault.decrypt(ciphertext, aad(endpointId, slot));
  }
}

const aad = (endpointId: string, slot: string) => `webhook_endpoint:${endpointId}:${slot}_secret`;
