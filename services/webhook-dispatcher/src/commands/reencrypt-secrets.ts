// Operator command: seals every webhook signing secret anew under VAULT_ACTIVE_KEY_ID, bound to its organization.
//   node services/webhook-dispatcher/dist/commands/reencrypt-secrets.js
import { exitOnConfigError } from '@svc/config';
import { vaultFromConfig } from '@svc/crypto';
import { connectionConfig, openPgDatabase, serviceDatabaseName } from '@svc/db';
import { createLogger } from '@svc/logger';
import { loadServiceConfig } from '../config.ts';
import { EndpointsRepository } from '../data/endpoints.repository.ts';
import { reencryptSecrets } from '../domain/reencrypt-secrets.ts';
import { SecretBox } from '../domain/secrets.ts';

async function main(): Promise<void> {
  const config = exitOnConfigError('webhook-dispatcher reencrypt-secrets', () => loadServiceConfig());
  const logger = createLogger({ service: 'webhook-dispatcher', level: config.LOG_LEVEL });
  const vault = vaultFromConfig(config.VAULT_KEYS, config.VAULT_ACTIVE_KEY_ID);
  const db = openPgDatabase(
    connectionConfig(config.DATABASE_URL, config.DATABASE_NAME ?? serviceDatabaseName('webhook-dispatcher')),
    { max: 2, onPoolError: (error) => logger.warn({ err: error }, 'idle database connection failed') },
  );
  try {
    const moved = await reencryptSecrets({ endpoints: new EndpointsRepository(db), secrets: new SecretBox(vault) });
    logger.info(
      { endpoints: moved.endpoints, active_key: vault.activeKeyId },
      're-encrypted signing secrets under the active key',
    );
    if (moved.unreadable.length > 0) {
      logger.error(
        { endpoint_ids: moved.unreadable },
        'signing secrets that open under no binding were left as they are',
      );
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
