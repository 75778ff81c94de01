import pg from 'pg';
import { connectionConfig, connectionUrl, pgClientSettings } from './connection-config.ts';

describe('connectionConfig', () => {
  it('reads a TCP server URL and names the service database, whatever the URL names', () => {
    expect(connectionConfig('postgresql://app:s%40cret@db.internal:6543/ignored', 'social_publisher')).toEqual({
      host: 'db.internal',
      port: 6543,
      user: 'app',
      password: 's@cret',
      database: 'social_publisher',
    });
  });

  it.each([
    ['the host parameter', 'postgresql://postgres@localhost/?host=/var/run/postgresql'],
    ['a percent-encoded host', 'postgresql://postgres@%2Fvar%2Frun%2Fpostgresql'],
  ])('takes a Unix socket directory from %s, as libpq does', (_form, url) => {
    expect(connectionConfig(url, 'social_gateway')).toMatchObject({
      host: '/var/run/postgresql',
      port: 5432,
      user: 'postgres',
    });
  });

  it('round-trips a socket directory through connectionUrl, as prisma migrate receives it', () => {
    const config = connectionConfig('postgresql://postgres@localhost:5433/?host=/run/pg%20sockets', 'social_billing');
    const url = connectionUrl(config);
    expect(url).toBe('postgresql://postgres@%2Frun%2Fpg%20sockets:5433/social_billing');
    expect(connectionConfig(url, 'social_billing')).toEqual(config);
  });
});

describe('pgClientSettings', () => {
  const server = connectionConfig('postgresql://app@db.internal:6543/', 'social_publisher');

  it("names a service's connections after it, and a pool's after its purpose too", () => {
    expect(pgClientSettings({ ...server, applicationName: 'publisher' })).toEqual({
      host: 'db.internal',
      port: 6543,
      user: 'app',
      database: 'social_publisher',
      application_name: 'publisher',
    });
    expect(pgClientSettings({ ...server, applicationName: 'publisher' }, 'delivery').application_name).toBe(
      'publisher/delivery',
    );
  });

  it('names nothing for a connection no service opens (tools, tests), and never sends an absent password', () => {
    expect(pgClientSettings(server, 'listen')).toEqual({
      host: 'db.internal',
      port: 6543,
      user: 'app',
      database: 'social_publisher',
    });
  });
});

describe('a service connection through the local server socket', () => {
  it('answers a query when PostgreSQL runs on this machine', async () => {
    const client = new pg.Client(
      connectionConfig('postgresql://postgres@localhost/?host=/var/run/postgresql', 'postgres'),
    );
    try {
      await client.connect();
    } catch (error) {
      throw new Error(
        `PostgreSQL's socket /var/run/postgresql/.s.PGSQL.5432 is not there: start PostgreSQL on this machine (${(error as Error).message})`,
      );
    }
    try {
      const { rows } = await client.query<{ socket: boolean }>('SELECT inet_server_addr() IS NULL AS socket');
      expect(rows[0]?.socket).toBe(true);
    } finally {
      await client.end();
    }
  });
});
