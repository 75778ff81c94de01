import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { deployedServices, get, list, productionServices, repoRoot } from './deploy-facts.ts';
import { environment, service } from './compose-file.ts';

// docker-compose.yml's database roles: db-roles makes them (deploy/postgres/provision.sh), migrate
// applies every migration as the migrator, and only then do the services start, each as its own role.
const variable = (role: string) => `DB_PASSWORD_${role.toUpperCase().replace(/-/g, '_')}`;
const required = (role: string) => `\${${variable(role)}:?set ${variable(role)} (scripts/compose-env writes one)}`;

describe('docker-compose.yml database roles', () => {
  it('makes the roles with the one provisioning script, as the superuser, with a password for each', () => {
    const roles = service('db-roles');
    expect(roles.entrypoint).toEqual(['sh', '/provision/provision.sh']);
    expect(list(roles.volumes, 'db-roles.volumes')).toContain('./deploy/postgres:/provision:ro');
    expect(get(roles, 'depends_on.postgres.condition')).toBe('service_healthy');
    const env = environment('db-roles');
    expect(env.DB_REQUIRE_PASSWORDS).toBe('1');
    for (const role of ['migrator', ...deployedServices]) expect(env[variable(role)]).toBe(required(role));
  });

  it('migrates every service as the migrator once the roles exist', () => {
    const migrate = service('migrate');
    expect(list(migrate.command, 'migrate.command').slice(0, 2)).toEqual(['node', 'libs/db/dist/migrate-main.js']);
    expect(list(migrate.command, 'migrate.command').slice(2).sort()).toEqual(deployedServices);
    expect(get(migrate, 'build.target')).toBe('build');
    expect(environment('migrate').DATABASE_URL).toBe(
      `postgresql://social_migrator:${required('migrator')}@postgres:5432`,
    );
    expect(get(migrate, 'depends_on.db-roles.condition')).toBe('service_completed_successfully');
  });

  it.each(productionServices.map((facts) => [facts.name, facts] as const))(
    '%s connects as its own role, after the migrations, and does not migrate itself',
    (name, facts) => {
      const env = environment(name);
      expect(env.DATABASE_URL).toBe(
        `postgresql://social_${facts.code.replace(/-/g, '_')}:${required(facts.code)}@postgres:5432`,
      );
      expect(env.DATABASE_MIGRATE_ON_START).toBe('false');
      expect(get(service(name).depends_on, 'migrate.condition')).toBe('service_completed_successfully');
    },
  );

  it('has scripts/compose-env write every password, URL-safe (it sits in DATABASE_URL)', () => {
    const written = execFileSync(join(repoRoot, 'scripts/compose-env'), { encoding: 'utf8', stdio: 'pipe' });
    const values = Object.fromEntries(
      written
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    for (const role of ['migrator', ...deployedServices])
      expect({ role, value: values[variable(role)] }).toEqual({
        role,
        value: expect.stringMatching(/^[A-Za-z0-9_-]{24,}$/),
      });
  });
});
