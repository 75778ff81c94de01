import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { migrationsUpToDate } from './applied-migrations.ts';
import type { PgConnectionConfig } from './connection-config.ts';
import { connectionUrl } from './connection-config.ts';

const DONE = /All migrations have been successfully applied\.|No pending migrations to apply\./;

export interface MigrateOptions {
  /** The service folder holding prisma.config.ts and prisma/migrations. */
  serviceDir: string;
  connection: PgConnectionConfig;
  /** Upper bound for the CLI run; a hung migration must not hang start-up. */
  timeoutMs?: number;
}

const NOTHING_PENDING = 'No pending migrations to apply.';

/**
 * Applies pending migrations with `prisma migrate deploy` through the service's prisma.config.ts
 * (and so through the offline bridge). Prisma has no programmatic migrate API, so the CLI is spawned,
 * unless the database already records every migration on disk (applied-migrations.ts).
 */
export async function migrateDatabase(options: MigrateOptions): Promise<string> {
  if (await migrationsUpToDate(options.serviceDir, options.connection)) return NOTHING_PENDING;
  return runMigrateDeploy(options);
}

/** `prisma migrate deploy`, whatever the database records. */
export async function runMigrateDeploy(options: MigrateOptions): Promise<string> {
  const requireFromService = createRequire(path.join(options.serviceDir, 'package.json'));
  const cli = requireFromService.resolve('prisma/build/index.js');
  const serverUrl = connectionUrl({ ...options.connection, database: 'postgres' });
  const env = {
    ...process.env,
    DATABASE_URL: serverUrl,
    DATABASE_NAME: options.connection.database,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'migrate', 'deploy'], {
      cwd: options.serviceDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let finished = false;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // The CLI lingers about 10 s after its last word (an unreleased timer inside Prisma's migrate
      // deploy). The final line means every migration is committed, so the process is not awaited.
      if (!finished && DONE.test(output)) {
        finished = true;
        clearTimeout(timer);
        child.kill('SIGTERM');
        resolve(output);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (finished) return;
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `prisma migrate deploy failed for ${options.connection.database} (${signal ?? `exit ${code}`}):\n${output}`,
          ),
        );
    });
  });
}
