import type { Vault } from '@svc/crypto';
import type { AccountsRepository } from '../data/accounts.repository.ts';
import type { OAuthAppsRepository } from '../data/oauth-apps.repository.ts';
import { sealedFor } from './account-view.ts';

/**
 * Moves every stored secret to the vault's active key (after a new key is added to VAULT_KEYS and
 * made active). Rows already under the active key are left alone, so the pass can be re-run safely;
 * once it reports zero remaining, the old key can be removed from VAULT_KEYS.
 */
export async function reencryptSecrets(deps: {
  accounts: AccountsRepository;
  apps: OAuthAppsRepository;
  vault: Vault;
}): Promise<{ accounts: number; apps: number }> {
  const { vault } = deps;
  let accounts = 0;
  let afterId: string | undefined;
  for (;;) {
    const batch = await deps.accounts.all({ ...(afterId === undefined ? {} : { afterId }), take: 200 });
    if (batch.length === 0) break;
    for (const row of batch) {
      const stale =
        vault.needsReencryption(row.accessToken) ||
        (row.refreshToken !== null && vault.needsReencryption(row.refreshToken));
      if (!stale) continue;
      await deps.accounts.update(row.id, {
        accessToken: vault.reencrypt(row.accessToken, sealedFor.accessToken(row.id)),
        ...(row.refreshToken === null
          ? {}
          : { refreshToken: vault.reencrypt(row.refreshToken, sealedFor.refreshToken(row.id)) }),
      });
      accounts += 1;
    }
    afterId = batch[batch.length - 1]!.id;
  }
  let apps = 0;
  for (const app of await deps.apps.all()) {
    if (!vault.needsReencryption(app.clientSecret)) continue;
    await deps.apps.updateSecret(app.id, vault.reencrypt(app.clientSecret, sealedFor.clientSecret(app.id)));
    apps += 1;
  }
  return { accounts, apps };
}
