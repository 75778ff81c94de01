import { VaultError, type Vault } from '@svc/crypto';
import type { AccountsRepository } from '../data/accounts.repository.ts';
import type { OAuthAppsRepository } from '../data/oauth-apps.repository.ts';
import { formerlySealedFor, sealedFor } from './account-view.ts';

/**
 * Seals every stored secret anew where it needs it: under the vault's active key (after a new key is
 * added to VAULT_KEYS and made active), and bound to its organization where it was sealed before
 * the binding named one. Rows already current are left alone, so the pass can be re-run safely;
 * once it reports zero, the old key can be removed from VAULT_KEYS. A row whose secrets open under
 * no binding (its key gone, or the row moved to another organization) is left as it is and listed.
 */
export async function reencryptSecrets(deps: {
  accounts: AccountsRepository;
  apps: OAuthAppsRepository;
  vault: Vault;
}): Promise<{ accounts: number; apps: number; unreadable: string[] }> {
  const { vault } = deps;
  const unreadable: string[] = [];
  /** The resealed value, or undefined when current or unreadable (then listed). */
  const reseal = (id: string, ciphertext: string, associatedData: string, former: string) => {
    try {
      return vault.reseal(ciphertext, associatedData, former);
    } catch (error) {
      if (!(error instanceof VaultError)) throw error;
      if (!unreadable.includes(id)) unreadable.push(id);
      return undefined;
    }
  };
  let accounts = 0;
  let afterId: string | undefined;
  for (;;) {
    const batch = await deps.accounts.all({ ...(afterId === undefined ? {} : { afterId }), take: 200 });
    if (batch.length === 0) break;
    for (const row of batch) {
      const accessToken = reseal(
        row.id,
        row.accessToken,
        sealedFor.accessToken(row.orgId, row.id),
        formerlySealedFor.accessToken(row.id),
      );
      const refreshToken =
        row.refreshToken === null
          ? undefined
          : reseal(
              row.id,
              row.refreshToken,
              sealedFor.refreshToken(row.orgId, row.id),
              formerlySealedFor.refreshToken(row.id),
            );
      if (accessToken === undefined && refreshToken === undefined) continue;
      await deps.accounts.update(row.id, {
        ...(accessToken === undefined ? {} : { accessToken }),
        ...(refreshToken === undefined ? {} : { refreshToken }),
      });
      accounts += 1;
    }
    afterId = batch[batch.length - 1]!.id;
  }
  let apps = 0;
  for (const app of await deps.apps.all()) {
    const clientSecret = reseal(
      app.id,
      app.clientSecret,
      sealedFor.clientSecret(app.orgId, app.id),
      formerlySealedFor.clientSecret(app.id),
    );
    if (clientSecret === undefined) continue;
    await deps.apps.updateSecret(app.id, clientSecret);
    apps += 1;
  }
  return { accounts, apps, unreadable };
}
