import { defineConfig } from 'prisma/config';
import { connectionConfig, serviceDatabaseName } from './connection-config.ts';
import { createPrismaAdapter } from './prisma-bridge.ts';

const DEFAULT_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432';

/**
 * What every service's prisma.config.ts returns. The adapter is built lazily because Prisma loads
 * this file for `generate` too, which must work in a clean checkout with no database configured.
 * `DATABASE_URL` is the server URL shared by all services; `DATABASE_NAME` overrides the database
 * (tests point migrations at a throwaway database this way).
 */
export function servicePrismaConfig(service: string) {
  // The schema's datasource reads env("DATABASE_URL"), and Prisma must resolve it even for
  // `generate` (otherwise it falls back to downloading a Rust engine), so a local default is set.
  process.env.DATABASE_URL ??= DEFAULT_SERVER_URL;
  return defineConfig({
    experimental: { adapter: true },
    engine: 'js',
    // Relative to the service's prisma.config.ts.
    schema: 'prisma/schema',
    migrations: { path: 'prisma/migrations' },
    adapter: () => {
      const serverUrl = process.env.DATABASE_URL ?? DEFAULT_SERVER_URL;
      const database = process.env.DATABASE_NAME ?? serviceDatabaseName(service);
      return Promise.resolve(
        createPrismaAdapter(connectionConfig(serverUrl, database), { max: 2, allowExitOnIdle: true }),
      );
    },
  });
}
