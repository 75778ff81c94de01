import { VaultError } from '@svc/crypto';
import type { EndpointChanges, EndpointRow, EndpointsRepository } from '../data/endpoints.repository.ts';
import type { SecretBox } from './secrets.ts';

/** What an endpoint's secrets become when sealed anew; nothing when every one is current. */
function resealed(secrets: SecretBox, row: EndpointRow): EndpointChanges {
  const current = secrets.reseal(row.orgId, row.id, 'current', row.secretCipher);
  const previous = row.previousSecrets.map((entry) => ({
    entry,
    cipher: secrets.reseal(row.orgId, row.id, 'previous', entry.cipher),
  }));
  return {
    ...(current === undefined ? {} : { secretCipher: current }),
    ...(previous.every(({ cipher }) => cipher === undefined)
      ? {}
      : { previousSecrets: previous.map(({ entry, cipher }) => ({ ...entry, cipher: cipher ?? entry.cipher })) }),
  };
}

/**
 * Seals every endpoint's signing secrets anew where they need it: under the vault's active key, and
 * bound to the organization where they were sealed before the binding named one. Each endpoint is
 * re-read under its row lock, so a rotation meanwhile is never overwritten; re-running is safe, and
 * once it reports zero the old key can leave VAULT_KEYS. An endpoint whose secrets open under no
 * binding (its key gone, or the row moved to another organization) is left as it is and listed.
 */
export async function reencryptSecrets(deps: {
  endpoints: EndpointsRepository;
  secrets: SecretBox;
}): Promise<{ endpoints: number; unreadable: string[] }> {
  let endpoints = 0;
  const unreadable: string[] = [];
  let afterId: string | undefined;
  for (;;) {
    const batch = await deps.endpoints.page(afterId, 200);
    if (batch.length === 0) break;
    for (const row of batch) {
      try {
        if (Object.keys(resealed(deps.secrets, row)).length === 0) continue;
        await deps.endpoints.updateLocked(row.orgId, row.id, (locked) => resealed(deps.secrets, locked));
        endpoints += 1;
      } catch (error) {
        if (!(error instanceof VaultError)) throw error;
        unreadable.push(row.id);
      }
    }
    afterId = batch[batch.length - 1]!.id;
  }
  return { endpoints, unreadable };
}
