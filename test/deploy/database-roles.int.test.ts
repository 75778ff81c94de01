import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { connectionConfig, pg, pgClientSettings } from '@svc/db';
import { TEST_DATABASE_URL, uniqueName } from '@svc/testing';
import { deployedServices, readRepoFile, repoRoot } from './deploy-facts.ts';

// deploy/postgres/provision.sh and the migrations entry point (libs/db/dist/migrate-main.js, what the
// Kubernetes Job and compose's migrate one-shot run) against the real local PostgreSQL, with role and
// database names of this run only.
const prefix = uniqueName('roles');
const services = ['accounts', 'publisher'];
const passwords: Record<string, string> = Object.fromEntries(
  [...services, 'migrator'].map((name) => [name, randomBytes(12).toString('hex')]),
);
const roleOf = (name: string) => `${prefix}_${name}`;
const admin = connectionConfig(TEST_DATABASE_URL, 'postgres');

/** Connects as one of this run's roles (the server may trust local clients: the privileges still apply). */
async function connectAs(name: string, database: string): Promise<InstanceType<typeof pg.Client>> {
  const client = new pg.Client(pgClientSettings({ ...admin, user: roleOf(name), password: passwords[name], database }));
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

async function asAdmin<T>(work: (client: InstanceType<typeof pg.Client>) => Promise<T>): Promise<T> {
  const client = new pg.Client(pgClientSettings(admin));
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function provision(): void {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PGHOST: admin.host,
    PGPORT: String(admin.port),
    PGUSER: admin.user,
    PGPASSWORD: admin.password ?? '',
    DB_SERVICES: services.join(' '),
    DB_ROLE_PREFIX: prefix,
    DB_DATABASE_PREFIX: prefix,
    DB_REQUIRE_PASSWORDS: '1',
  };
  for (const [name, password] of Object.entries(passwords)) env[`DB_PASSWORD_${name.toUpperCase()}`] = password;
  execFileSync('sh', [join(repoRoot, 'deploy/postgres/provision.sh')], { env, stdio: 'pipe', timeout: 60_000 });
}

beforeAll(() => {
  // Twice: a second run (every release's Job, every compose start) must converge, not fail.
  provision();
  provision();
  const migratorUrl = new URL(TEST_DATABASE_URL);
  migratorUrl.username = roleOf('migrator');
  migratorUrl.password = passwords.migrator!;
  execFileSync(process.execPath, [join(repoRoot, 'libs/db/dist/migrate-main.js'), 'publisher'], {
    env: { ...process.env, DATABASE_URL: migratorUrl.href, DATABASE_NAME: roleOf('publisher') },
    stdio: 'pipe',
    timeout: 120_000,
  });
}, 200_000);

afterAll(async () => {
  await asAdmin(async (client) => {
    for (const service of services) await client.query(`DROP DATABASE IF EXISTS "${roleOf(service)}" WITH (FORCE)`);
    for (const name of ['migrator', ...services]) {
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [roleOf(name)]);
      if (exists.rowCount === 0) continue;
      await client.query(`DROP OWNED BY "${roleOf(name)}"`);
      await client.query(`DROP ROLE "${roleOf(name)}"`);
    }
  });
});

describe('database roles (deploy/postgres/provision.sh)', () => {
  it("refuses the publisher's role a connection to the accounts database", async () => {
    await expect(connectAs('publisher', roleOf('accounts'))).rejects.toMatchObject({ code: '42501' });
  });

  it('leaves no other role, PUBLIC included, CONNECT on a service database: only its owner and the migrator', async () => {
    const granted = await asAdmin(async (client) => {
      const { rows } = await client.query<{ role: string; database: string }>(
        `SELECT r.rolname AS role, d.datname AS database
           FROM pg_database d CROSS JOIN pg_roles r
          WHERE d.datname = ANY($1) AND has_database_privilege(r.oid, d.oid, 'CONNECT')
            AND NOT r.rolsuper ORDER BY 2, 1`,
        [services.map(roleOf)],
      );
      return rows;
    });
    expect(granted).toEqual(
      services
        .flatMap((service) =>
          [roleOf('migrator'), roleOf(service)].map((role) => ({ role, database: roleOf(service) })),
        )
        .sort((a, b) => a.database.localeCompare(b.database) || a.role.localeCompare(b.role)),
    );
  });

  it('gives no role superuser, CREATEDB or CREATEROLE', async () => {
    const roles = await asAdmin(async (client) => {
      const { rows } = await client.query(
        'SELECT rolname, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls FROM pg_roles WHERE rolname LIKE $1 ORDER BY 1',
        [`${prefix}\\_%`],
      );
      return rows;
    });
    expect(roles.map((role: { rolname: string }) => role.rolname)).toEqual(
      ['accounts', 'migrator', 'publisher'].map(roleOf),
    );
    for (const role of roles)
      expect(role).toMatchObject({
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolreplication: false,
        rolbypassrls: false,
      });
  });

  it("refuses the publisher's role CREATE DATABASE", async () => {
    const client = await connectAs('publisher', roleOf('publisher'));
    try {
      await expect(client.query(`CREATE DATABASE "${prefix}_rogue"`)).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.end();
    }
  });

  it('lets the publisher read and write its own tables, which the migrator created as the publisher', async () => {
    const client = await connectAs('publisher', roleOf('publisher'));
    try {
      const owners = await client.query<{ owner: string }>(
        "SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'",
      );
      expect(owners.rows).toEqual([{ owner: roleOf('publisher') }]);
      const applied = await client.query('SELECT 1 FROM _prisma_migrations WHERE finished_at IS NOT NULL');
      expect(applied.rowCount).toBeGreaterThan(0);
      await client.query("INSERT INTO processed_messages (consumer, message_id) VALUES ('roles-test', 'm1')");
      const read = await client.query("SELECT message_id FROM processed_messages WHERE consumer = 'roles-test'");
      expect(read.rows).toEqual([{ message_id: 'm1' }]);
      const removed = await client.query("DELETE FROM processed_messages WHERE consumer = 'roles-test'");
      expect(removed.rowCount).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('provisions every deployed service by default', () => {
    const line = /services=\$\{DB_SERVICES:-([^}]*)\}/.exec(readRepoFile('deploy/postgres/provision.sh'));
    expect(line?.[1]?.split(' ').sort()).toEqual(deployedServices);
  });
});
