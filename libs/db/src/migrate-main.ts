import path from 'node:path';
import { connectionConfig, serviceDatabaseName } from './connection-config.ts';
import { migrateDatabase } from './migrate.ts';

/**
 * `node libs/db/dist/migrate-main.js <service>...`: applies each service's pending migrations to its
 * database, as the role in DATABASE_URL (the migrator's, in Kubernetes and compose), where the
 * services do not migrate themselves (DATABASE_MIGRATE_ON_START=false). DATABASE_NAME overrides the
 * database name for a single service (tests). Exits 1 on the first failure.
 */
async function main(services: string[]): Promise<void> {
  if (services.length === 0) throw new Error('usage: migrate-main <service>...');
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') throw new Error('DATABASE_URL is not set');
  const override = process.env.DATABASE_NAME;
  if (override !== undefined && services.length > 1) throw new Error('DATABASE_NAME names one service database only');
  // dist/ sits in libs/db/, three levels below the repository root (the image's /app).
  const root = path.resolve(__dirname, '..', '..', '..');
  for (const service of services) {
    if (!/^[a-z][a-z0-9-]*$/.test(service)) throw new Error(`not a service name: ${service}`);
    const connection = {
      ...connectionConfig(serverUrl, override ?? serviceDatabaseName(service)),
      applicationName: `${service}/migrate`,
    };
    const output = await migrateDatabase({ serviceDir: path.join(root, 'services', service), connection });
    process.stdout.write(
      `${JSON.stringify({ service, database: connection.database, result: output.trim().split('\n').at(-1) })}\n`,
    );
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
