/** Discrete connection settings. Prisma's JS schema engine needs these rather than a URL (see prisma-bridge.ts). */
export interface PgConnectionConfig {
  host: string;
  port: number;
  user: string;
  password: string | undefined;
  database: string;
  /**
   * Who opens the connections, as PostgreSQL lists them (`pg_stat_activity.application_name`): the
   * service's name, so an operator can tell which service holds a server's connections.
   */
  applicationName?: string;
}

/** What pg needs to open one connection, from `pg.Client` to a pool's clients. */
export interface PgClientSettings {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  application_name?: string;
}

/**
 * pg's settings for a connection. `purpose` names the pool after the service's name
 * (`publisher/delivery`, `publisher/relay`): with a pool per job in each process, a server near
 * `max_connections` shows which service and which of its pools hold the connections
 * (docs/operations.md, "Database connection budget").
 */
export function pgClientSettings(connection: PgConnectionConfig, purpose?: string): PgClientSettings {
  const { host, port, user, password, database, applicationName } = connection;
  const name =
    applicationName === undefined
      ? undefined
      : purpose === undefined
        ? applicationName
        : `${applicationName}/${purpose}`;
  return {
    host,
    port,
    user,
    database,
    ...(password === undefined ? {} : { password }),
    ...(name === undefined ? {} : { application_name: name }),
  };
}

/**
 * Builds the settings for one service database from the server URL (`DATABASE_URL`, no database
 * name needed) and the service's own database name. A database named in the URL is ignored on
 * purpose: every service owns exactly one database, named by the service.
 *
 * A server on the same machine can be reached through its Unix socket, as libpq spells it: the
 * socket's directory as the host, percent-encoded (`postgresql://postgres@%2Fvar%2Frun%2Fpostgresql`)
 * or in the `host` parameter (`postgresql://postgres@localhost/?host=/var/run/postgresql`). It costs
 * each statement about a fifth less client CPU than loopback TCP, within the noise for the whole
 * system (docs/performance.md, "Prepared statements").
 */
export function connectionConfig(serverUrl: string, database: string): PgConnectionConfig {
  const url = new URL(serverUrl);
  return {
    host: url.searchParams.get('host') ?? (decodeURIComponent(url.hostname) || '127.0.0.1'),
    port: url.port === '' ? 5432 : Number(url.port),
    user: decodeURIComponent(url.username) || 'postgres',
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    database,
  };
}

/** The same settings as a URL, for tools that only take one. */
export function connectionUrl(config: PgConnectionConfig): string {
  const auth =
    config.password === undefined
      ? encodeURIComponent(config.user)
      : `${encodeURIComponent(config.user)}:${encodeURIComponent(config.password)}`;
  // A socket directory is a path: encoded, or its slashes would end the URL's authority.
  const host = isSocketDirectory(config.host) ? encodeURIComponent(config.host) : config.host;
  return `postgresql://${auth}@${host}:${config.port}/${encodeURIComponent(config.database)}`;
}

/** libpq's rule: a host that starts with a slash names the directory of the server's Unix socket. */
function isSocketDirectory(host: string): boolean {
  return host.startsWith('/');
}

/** `webhook-dispatcher` -> `social_webhook_dispatcher`. */
export function serviceDatabaseName(service: string): string {
  return `social_${service.replace(/-/g, '_')}`;
}
