import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { JWT_AUDIENCE } from '../../services/dashboard/src/domain/token-minter.ts';
import {
  dashboard,
  deployedServices,
  gateway,
  get,
  isObj,
  list,
  networkServices,
  networkUrls,
  obj,
  productionServices,
  readRepoFile,
  repoRoot,
  requiredEnv,
  serviceConfig,
  str,
  workers,
} from './deploy-facts.ts';
import { environment, service, services } from './compose-file.ts';

/** What Compose substitutes: ${VAR:-default} -> default; ${VAR:?message} (required) -> a stand-in value. */
function withDefaults(value: string): string {
  return value
    .replace(/\$\{[A-Z0-9_]+:\?[^}]*\}/g, 'required-value')
    .replace(/\$\{[A-Z0-9_]+(?::?-([^}]*))?\}/g, (_match, fallback: string | undefined) => fallback ?? '');
}

/** What Compose substitutes from an .env: ${VAR:?message} and ${VAR} -> its value, ${VAR:-default} -> its value or the default. */
function substituted(value: string, dotEnv: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g,
    (_match, name: string, kind: string | undefined, fallback: string) => {
      const found = dotEnv[name];
      if (found !== undefined && found !== '') return found;
      if (kind === '?') throw new Error(`Compose refuses to start: ${name} is required (${fallback})`);
      return kind === '-' ? fallback : '';
    },
  );
}

/** Every variable docker-compose.yml requires (`${VAR:?...}`): Compose refuses to start without each. */
const requiredByCompose = [
  ...new Set([...readRepoFile('docker-compose.yml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((match) => match[1]!)),
].sort();

/** Stripe's values come from a Stripe account, not from compose-env's randomness: it copies them from its environment. */
const stripeValues = {
  STRIPE_SECRET_KEY: 'sk_test_51Qx7TfGk2mWcZ9rLp4Vd8NbH',
  STRIPE_WEBHOOK_SECRET: 'whsec_Hq3Zt8KfW2nRb6LmXc9VpJ4s',
  STRIPE_PRICE_ID: 'price_1Qx7UaGk2mWcZ9rLkJ3bT6Yw',
};

function composeEnv(extra: Record<string, string> = {}): { values: Record<string, string>; stderr: string } {
  const run = spawnSync(join(repoRoot, 'scripts/compose-env'), {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...extra },
  });
  if (run.status !== 0) throw new Error(`compose-env failed: ${run.stderr}`);
  const values = Object.fromEntries(
    run.stdout
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { values, stderr: run.stderr };
}

function seconds(duration: string): number {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`unsupported duration ${duration}`);
  const amount = Number(match[1]);
  return match[2] === 'ms' ? amount / 1000 : match[2] === 'm' ? amount * 60 : amount;
}

function healthcheckCommand(name: string): string {
  return list(get(service(name), 'healthcheck.test'), `${name}.healthcheck.test`)
    .map(String)
    .join(' ');
}

describe('docker-compose.yml', () => {
  describe('infrastructure', () => {
    it.each([
      ['postgres', /^postgres:15(\.|-|$)/],
      ['rabbitmq', /^rabbitmq:3(\.[\d.]+)?-management/],
      ['redis', /^redis:7(\.|-|$)/],
    ])('%s runs the expected image with a healthcheck', (name, image) => {
      expect(str(service(name).image, `${name}.image`)).toMatch(image);
      expect(healthcheckCommand(name).length).toBeGreaterThan(0);
    });
  });

  describe.each(productionServices.map((facts) => [facts.name, facts] as const))('%s', (name, facts) => {
    it('is built from deploy/Dockerfile with SERVICE set to the service it runs', () => {
      const build = obj(service(name).build, `${name}.build`);
      expect(build.context).toBe('.');
      expect(build.dockerfile).toBe('deploy/Dockerfile');
      expect(get(build, 'args.SERVICE')).toBe(facts.code);
      expect(service(name).image).toBe(`social-publishing/${facts.code}:dev`);
    });

    it('runs by default (no profile) and runs node, never npm', () => {
      expect(service(name).profiles).toBeUndefined();
      const command = service(name).command;
      const entrypoint = service(name).entrypoint;
      expect(entrypoint).toBeUndefined();
      if (command !== undefined) expect(list(command, `${name}.command`)[0]).toBe('node');
    });

    it('waits for healthy infrastructure: Redis too when it reads REDIS_URL', () => {
      const dependsOn = obj(service(name).depends_on, `${name}.depends_on`);
      const usesRedis = 'REDIS_URL' in serviceConfig(facts.code).variables;
      const needed = usesRedis ? ['postgres', 'rabbitmq', 'redis'] : ['postgres', 'rabbitmq'];
      for (const dependency of needed) {
        expect(get(dependsOn, `${dependency}.condition`)).toBe('service_healthy');
      }
      expect(Object.keys(dependsOn)).not.toContain('sandbox');
    });

    it('gets every variable it needs', () => {
      const env = environment(name);
      expect(Object.keys(env)).toEqual(expect.arrayContaining(requiredEnv(facts)));
      expect(env.NODE_ENV).toBe('production');
      expect(env.LOG_LEVEL).toBe('info');
      expect(env.AMQP_NAMESPACE).toBe('');
      expect(env.SHUTDOWN_GRACE_MS).toBe('25000');
      expect(env.RPC_TIMEOUT_MS).toBe('5000');
      expect(withDefaults(env.AMQP_URL ?? '')).toMatch(/^amqps?:\/\/.+@rabbitmq:5672$/);
      for (const [variable, value] of Object.entries(facts.env ?? {}))
        expect({ variable, value: env[variable] }).toEqual({ variable, value });
    });

    it('gives DATABASE_URL as a server URL without a database name', () => {
      const url = new URL(withDefaults(environment(name).DATABASE_URL ?? ''));
      expect(url.protocol).toMatch(/^postgres(ql)?:$/);
      expect(url.hostname).toBe('postgres');
      expect(['', '/']).toContain(url.pathname);
    });

    it('sets only variables its service reads', () => {
      const declared = serviceConfig(facts.code).variables;
      const unread = Object.keys(environment(name)).filter((variable) => !(variable in declared));
      expect(unread).toEqual([]);
    });

    it('probes readiness on its own port and path', () => {
      const env = environment(name);
      expect(env[facts.portVariable]).toBe(String(facts.port));
      expect(env.PROBE_PORT).toBe(String(facts.metricsPort));
      expect(healthcheckCommand(name)).toContain(`http://127.0.0.1:${facts.port}${facts.readiness}'`);
    });

    it('stops with SIGTERM and more time than SHUTDOWN_GRACE_MS', () => {
      expect(service(name).stop_signal ?? 'SIGTERM').toBe('SIGTERM');
      const grace = seconds(str(service(name).stop_grace_period, `${name}.stop_grace_period`));
      expect(grace * 1000).toBeGreaterThan(Number(environment(name).SHUTDOWN_GRACE_MS));
    });

    it('points network adapters at the sandbox only where the service has adapters', () => {
      const env = environment(name);
      for (const [variable, url] of Object.entries(networkUrls)) {
        if (networkServices.includes(facts.code)) expect(withDefaults(env[variable] ?? '')).toBe(url);
        else expect(env[variable]).toBeUndefined();
      }
    });
  });

  it('publishes the gateway on 8080, the dashboard only through its TLS proxy, and no worker port', () => {
    expect(list(service(gateway.name).ports, 'gateway.ports').map(String)).toContain('8080:8080');
    for (const facts of [...workers, dashboard]) expect(service(facts.name).ports).toBeUndefined();
  });

  it('serves the dashboard over https on its public address, through Caddy in front of it', () => {
    const env = environment(dashboard.name);
    const publicUrl = new URL(env.DASHBOARD_PUBLIC_URL ?? '');
    expect(publicUrl.protocol).toBe('https:');
    const proxy = service('dashboard-tls');
    expect(str(proxy.image, 'dashboard-tls.image')).toMatch(/^caddy:2(\.|$)/);
    const command = list(proxy.command, 'dashboard-tls.command').map(String);
    expect(command.slice(0, 2)).toEqual(['caddy', 'reverse-proxy']);
    const flag = (name: string) => command[command.indexOf(name) + 1];
    expect(flag('--from')).toBe(publicUrl.origin);
    expect(flag('--to')).toBe(`${dashboard.name}:${env.DASHBOARD_PORT}`);
    expect(command).toEqual(expect.arrayContaining(['--internal-certs', '--disable-redirects']));
    expect(list(proxy.ports, 'dashboard-tls.ports').map(String)).toEqual([
      `127.0.0.1:${publicUrl.port}:${publicUrl.port}`,
    ]);
    expect(get(proxy, 'depends_on.dashboard.condition')).toBe('service_healthy');
    // One proxy, which replaces any X-Forwarded-For a client sends: the dashboard trusts that one hop.
    expect(env.TRUST_PROXY_HOPS).toBe('1');
  });

  it('points the gateway at the dashboard for JWTs, and the dashboard at the gateway for /api', () => {
    const gatewayEnv = environment(gateway.name);
    const dashboardEnv = environment(dashboard.name);
    expect(gatewayEnv.JWT_JWKS_URL).toBe(
      `http://${dashboard.name}:${dashboardEnv.DASHBOARD_PORT}/.well-known/jwks.json`,
    );
    expect(gatewayEnv.JWT_ISSUER).toBe(dashboardEnv.DASHBOARD_ISSUER);
    expect(gatewayEnv.JWT_AUDIENCE).toBe(JWT_AUDIENCE);
    expect(dashboardEnv.GATEWAY_URL).toBe(`http://${gateway.name}:${gatewayEnv.PORT}`);
  });

  it("returns an OAuth connect to the API's address (where its hand-off page set the flow cookie), then to the dashboard's Accounts page", () => {
    const publicUrl = environment(dashboard.name).DASHBOARD_PUBLIC_URL;
    expect(withDefaults(environment('accounts').PUBLIC_BASE_URL ?? '')).toBe(
      withDefaults(environment(gateway.name).PUBLIC_BASE_URL ?? ''),
    );
    expect(withDefaults(environment(gateway.name).OAUTH_SUCCESS_REDIRECT ?? '')).toBe(`${publicUrl}/accounts`);
  });

  it('trusts no X-Forwarded-For: clients reach the gateway directly, with no proxy in front', () => {
    expect(environment('gateway').TRUST_PROXY_HOPS).toBe('0');
    const publishing = Object.entries(services).filter(
      ([, definition]) =>
        isObj(definition) &&
        definition.ports !== undefined &&
        list(definition.ports, 'ports')
          .map(String)
          .some((port) => /(^|:)(80|443|8080):/.test(port)),
    );
    expect(publishing.map(([service]) => service)).toEqual(['gateway']);
  });

  it('configures HS256 JWTs and Redis for the gateway', () => {
    const env = environment('gateway');
    expect(env.JWT_ALGORITHM).toBe('HS256');
    expect(env.REDIS_URL).toBe('redis://redis:6379');
    expect(env.RATE_LIMIT_PER_KEY).toBe('1200');
    expect(env.RATE_LIMIT_PER_ORG).toBe('3000');
  });

  it('has no default for any secret: Compose refuses to start until each is set', () => {
    const secrets: [string, string][] = [
      ['gateway', 'JWT_SECRET'],
      ['gateway', 'API_KEY_PEPPER'],
      ['accounts', 'VAULT_KEYS'],
      ['accounts', 'OAUTH_STATE_SECRET'],
      ['webhook-dispatcher', 'VAULT_KEYS'],
      ['dashboard', 'VAULT_KEYS'],
      ['billing', 'STRIPE_SECRET_KEY'],
      ['billing', 'STRIPE_WEBHOOK_SECRET'],
      ['billing', 'STRIPE_PRICE_ID'],
      ['postgres', 'POSTGRES_PASSWORD'],
      ['rabbitmq', 'RABBITMQ_DEFAULT_PASS'],
    ];
    for (const [name, variable] of secrets)
      expect({ variable, value: environment(name)[variable] }).toEqual({
        variable,
        value: expect.stringMatching(/^\$\{[A-Z_]+:\?[^}]+\}$/),
      });
    for (const name of ['gateway', 'accounts']) {
      expect(environment(name).AMQP_URL).toMatch(/\$\{AMQP_PASSWORD_[A-Z_]+:\?/);
      expect(environment(name).DATABASE_URL).toMatch(/\$\{DB_PASSWORD_[A-Z_]+:\?/);
    }
    expect(readRepoFile('docker-compose.yml')).not.toMatch(
      /dev-only|AAAAAAAAAAAAAAAAAAAA|AQEBAQEBAQEBAQEBAQEB|placeholder|change[-_]?me/i,
    );
    const vaultKeys = ['accounts', 'webhook-dispatcher', 'dashboard'].map((name) => environment(name).VAULT_KEYS);
    expect(new Set(vaultKeys).size).toBe(vaultKeys.length);
  });

  it("scripts/compose-env writes every variable Compose requires, the dispatcher's and the dashboard's own vault keys included", () => {
    const { values, stderr } = composeEnv(stripeValues);
    expect(requiredByCompose).toEqual(
      expect.arrayContaining([
        'JWT_SECRET',
        'WEBHOOK_VAULT_KEYS',
        'DASHBOARD_VAULT_KEYS',
        'STRIPE_SECRET_KEY',
        'POSTGRES_PASSWORD',
      ]),
    );
    for (const variable of requiredByCompose)
      expect({ variable, written: (values[variable] ?? '') !== '' }).toEqual({ variable, written: true });
    expect(stderr).toBe('');
    const vaultKeys = ['VAULT_KEYS', 'WEBHOOK_VAULT_KEYS', 'DASHBOARD_VAULT_KEYS'];
    for (const variable of vaultKeys) expect(Buffer.from(values[variable]!.slice(3), 'base64')).toHaveLength(32);
    expect(new Set(vaultKeys.map((variable) => values[variable])).size).toBe(vaultKeys.length);
    expect(composeEnv(stripeValues).values.JWT_SECRET).not.toBe(values.JWT_SECRET);
  });

  it('scripts/compose-env names the Stripe values it cannot make, and Compose then refuses to start', () => {
    const { values, stderr } = composeEnv();
    expect(stderr).toMatch(/STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_ID/);
    expect(() => substituted(environment('billing').STRIPE_SECRET_KEY ?? '', values)).toThrow(
      /STRIPE_SECRET_KEY is required/,
    );
  });

  it.each(productionServices.map((facts) => [facts.name, facts.code] as const))(
    '%s starts in production with its compose environment and the values compose-env writes',
    (name, code) => {
      const { values } = composeEnv(stripeValues);
      const env = Object.fromEntries(
        Object.entries(environment(name)).map(([variable, value]) => [variable, substituted(value, values)]),
      );
      expect(env.NODE_ENV).toBe('production');
      expect(() => serviceConfig(code).load(env)).not.toThrow();
    },
  );

  it('runs the sandbox only under the dev profile, on port 4010', () => {
    const sandbox = service('sandbox');
    expect(sandbox.profiles).toEqual(['dev']);
    expect(get(sandbox, 'build.args.SERVICE')).toBe('sandbox');
    expect(get(sandbox, 'environment.PORT')).toBe('4010');
    const profiled = Object.entries(services).filter(
      ([, definition]) => isObj(definition) && definition.profiles !== undefined,
    );
    expect(profiled.map(([name]) => name)).toEqual(['sandbox']);
  });

  it("defines no service beyond the infrastructure, the broker-users, db-roles and migrate one-shots, every deployed service (the publisher as its two roles), the dashboard's TLS proxy and the sandbox", () => {
    const expected = [
      'postgres',
      'rabbitmq',
      'broker-users',
      'db-roles',
      'migrate',
      'redis',
      'dashboard-tls',
      'sandbox',
      ...productionServices.map((facts) => facts.name),
    ];
    expect(Object.keys(services).sort()).toEqual(expected.sort());
  });

  it('connects every service as its own broker user, made by the broker-users one-shot before any starts', () => {
    const provisioner = service('broker-users');
    for (const facts of productionServices) {
      const variable = `AMQP_PASSWORD_${facts.code.toUpperCase().replace(/-/g, '_')}`;
      const url = environment(facts.name).AMQP_URL ?? '';
      expect(url).toBe(
        `amqp://${facts.code}:\${${variable}:?set ${variable} (scripts/compose-env writes one)}@rabbitmq:5672`,
      );
      expect(environment('broker-users')[variable]).toMatch(new RegExp(`^\\$\\{${variable}:\\?`));
      expect(get(service(facts.name).depends_on, 'broker-users.condition')).toBe('service_completed_successfully');
      expect(environment(facts.name).BROKER_USER_PREFIX).toBe('');
    }
    expect(list(provisioner.volumes, 'broker-users.volumes')).toContain(
      './deploy/rabbitmq/provision-users.sh:/provision-users.sh:ro',
    );
    expect(provisioner.restart).toBe('no');
  });

  it('provisions a broker user for every deployed service, and no other', () => {
    const loop = /^for service in ([a-z -]+); do$/m.exec(readRepoFile('deploy/rabbitmq/provision-users.sh'));
    expect(loop?.[1]?.split(' ').sort()).toEqual(deployedServices);
  });
});
