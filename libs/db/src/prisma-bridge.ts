/**
 * The one bridge between Prisma 6.19's JavaScript schema engine and @prisma/adapter-pg, used by the
 * runtime clients and by every service's prisma.config.ts (migrate deploy/dev/status).
 *
 * Why it exists (prisma/orm issue 27403; libs/db/README.md, "Prisma without binary downloads"):
 *  1. The JS schema engine cannot decode columns of type `name` (oid 19) and `"char"` (oid 18) that
 *     its own catalog queries return, so results report those columns as `text` (oid 25).
 *  2. The shadow database is derived from the adapter config; a connection string would override its
 *     name and make the shadow the real database, so only discrete host/port/user/database are passed.
 *  3. The shadow database is dropped while a pool connection is still open; `WITH (FORCE)` makes the
 *     drop succeed and the terminated idle connection (57P01) must not crash the CLI.
 *
 * The `pg` module must be the very one @prisma/adapter-pg loads (it checks `instanceof pg.Pool`),
 * so it is resolved from the adapter's own location.
 */
import { createRequire } from 'node:module';
import { PrismaPg } from '@prisma/adapter-pg';
import type * as PgModule from 'pg';
import { pgClientSettings, type PgConnectionConfig } from './connection-config.ts';
import { poolStats, type PoolStats } from './pg-raw-sql.ts';

const requireFromAdapter = createRequire(require.resolve('@prisma/adapter-pg'));
const pg = requireFromAdapter('pg') as typeof PgModule;

const CHAR_OID = 18;
const NAME_OID = 19;
const TEXT_OID = 25;
const ADMIN_SHUTDOWN = '57P01';
const SHADOW_PREFIX = 'prisma_migrate_shadow_db_';

type QueryResultLike = { fields?: { dataTypeID: number }[] } | undefined;

function reportCatalogTypesAsText(result: QueryResultLike): void {
  for (const field of result?.fields ?? []) {
    if (field.dataTypeID === NAME_OID || field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
  }
}

function forceDropDatabase(text: string): string {
  return /^\s*DROP DATABASE\s+"[^"]+"\s*;?\s*$/i.test(text) ? `${text.replace(/;\s*$/, '')} WITH (FORCE)` : text;
}

class BridgedClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [first] = args;
    if (typeof first === 'string') args[0] = forceDropDatabase(first);
    else if (first !== null && typeof first === 'object' && typeof (first as { text?: unknown }).text === 'string') {
      const config = first as { text: string };
      config.text = forceDropDatabase(config.text);
    }
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      // pg-pool calls query with a callback rather than awaiting a promise.
      const callback = last as (err: unknown, result: QueryResultLike) => void;
      args[args.length - 1] = (err: unknown, result: QueryResultLike) => {
        if (err === null || err === undefined) reportCatalogTypesAsText(result);
        callback(err, result);
      };
      return (super.query as (...a: unknown[]) => never)(...args);
    }
    const pending = (super.query as (...a: unknown[]) => unknown)(...args);
    if (pending instanceof Promise) {
      return pending.then((result: QueryResultLike) => {
        reportCatalogTypesAsText(result);
        return result;
      }) as never;
    }
    return pending as never;
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    // Only connections to a shadow database are silenced: it is dropped WITH (FORCE) while its pool,
    // which has no error listener, still holds them. Every other pool must see its errors.
    if (event === 'error' && this.database?.startsWith(SHADOW_PREFIX) === true) {
      const error = args[0] as { code?: unknown; message?: unknown } | undefined;
      if (error?.code === ADMIN_SHUTDOWN || error?.message === 'Connection terminated unexpectedly') return false;
    }
    return super.emit(event, ...args);
  }
}

export interface BridgeOptions {
  /** Pool size; migrations need few, services a handful. */
  max?: number;
  onPoolError?: (error: Error) => void;
  /** Let the process exit while idle connections are open (CLI runs; otherwise they linger 10 s). */
  allowExitOnIdle?: boolean;
  /** Receives the pool's use, read when asked (the runtime's saturation gauges). */
  onPool?: (stats: () => PoolStats) => void;
}

export function createPrismaAdapter(connection: PgConnectionConfig, options: BridgeOptions = {}): PrismaPg {
  const poolConfig: PgModule.PoolConfig = {
    ...pgClientSettings(connection),
    max: options.max ?? 10,
    allowExitOnIdle: options.allowExitOnIdle ?? false,
    Client: BridgedClient as unknown as typeof PgModule.Client,
  };
  // The pool is built here rather than by the adapter so that its use can be read; the adapter still
  // owns it (ends it on $disconnect) and listens for its idle-connection errors.
  const pool = new pg.Pool(poolConfig);
  options.onPool?.(() => poolStats(pool, poolConfig.max ?? 10));
  return new PrismaPg(pool, {
    disposeExternalPool: true,
    ...(options.onPoolError === undefined ? {} : { onPoolError: options.onPoolError }),
  });
}

export { pg };
