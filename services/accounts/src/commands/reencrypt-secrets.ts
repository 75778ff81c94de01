// Operator command: re-encrypts every stored token and client secret under VAULT_ACTIVE_KEY_ID.
//   node services/accounts/dist/commands/reencrypt-secrets.js
import { exitOnConfigError } from '@svc/config';
import { vaultFromConfig } from '@svc/crypto';
import { connectionConfig, createPrismaAdapter, serviceDatabaseName } from '@svc/db';
import { createLogger } from '@svc/logger';
import { loadServiceConfig } from '../config.ts';
import { AccountsRepository } from '../data/accounts.repository.ts';
import { OAuthAppsRepository } from '../data/oauth-apps.repository.ts';
import { reencryptSecrets } from '../domain/reencrypt-secrets.ts';
import { PrismaClient } from '../generated/prisma/client.ts';

async function main(): Promise<void> {
  const config = exitOnConfigError('accounts reencrypt-secrets', () => loadServiceConfig());
  const logger = createLogger({ service: 'accounts', level: config.LOG_LEVEL });
  const vault = vaultFromConfig(config.VAULT_KEYS, config.VAULT_ACTIVE_KEY_ID);
  const db = new PrismaClient({
    adapter: createPrismaAdapter(
      connectionConfig(config.DATABASE_URL, config.DATABASE_NAME ?? serviceDatabaseName('accounts')),
    ),
  });
  try {
    const moved = await reencryptSecrets({
      accounts: new AccountsRepository(db),
      apps: new OAuthAppsRepository(db),
      vault,
    });
    logger.info(
      { accounts: moved.accounts, apps: moved.apps, active_key: vault.activeKeyId },
      're-encrypted secrets under the active key',
    );
    if (moved.unreadable.length > 0) {
      logger.error({ ids: moved.unreadable }, 'secrets that open under no binding were left as they are');
      process.exitCode = 1;
    }
  } finally {
    await db.$disconnect();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`reencrypt-secrets failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
