import type { Vault } from '@svc/crypto';

type Slot = 'current' | 'previous';

/**
 * Signing secrets at rest: vault ciphertexts bound by associated data to their organization, endpoint
 * and slot, so a ciphertext copied to another row or slot, or a row moved to another organization,
 * does not decrypt. Plaintexts live only for one signing.
 */
export class SecretBox {
  constructor(private readonly vault: Vault) {}

  seal(orgId: string, endpointId: string, slot: Slot, secret: string): string {
    return this.vault.encrypt(secret, aad(orgId, endpointId, slot));
  }

  open(orgId: string, endpointId: string, slot: Slot, ciphertext: string): string {
    return this.vault.decrypt(ciphertext, aad(orgId, endpointId, slot));
  }

  /**
   * The ciphertext sealed anew under the active key and the current binding (also from the binding
   * before it named the organization), or undefined when it already is (see Vault.reseal).
   */
  reseal(orgId: string, endpointId: string, slot: Slot, ciphertext: string): string | undefined {
    return this.vault.reseal(ciphertext, aad(orgId, endpointId, slot), formerAad(endpointId, slot));
  }
}

const aad = (orgId: string, endpointId: string, slot: Slot) =>
  `org:${orgId}:webhook_endpoint:${endpointId}:${slot}_secret`;
const formerAad = (endpointId: string, slot: Slot) => `webhook_endpoint:${endpointId}:${slot}_secret`;
