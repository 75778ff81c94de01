import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadServiceConfig as loadAccountsConfig } from '../../services/accounts/src/config.ts';
import { loadServiceConfig as loadAnalyticsConfig } from '../../services/analytics-sync/src/config.ts';
import { loadServiceConfig as loadBillingConfig } from '../../services/billing/src/config.ts';
import { loadGatewayConfig } from '../../services/gateway/src/config.ts';
import { loadServiceConfig as loadPublisherConfig } from '../../services/publisher/src/config.ts';
import { loadServiceConfig as loadSchedulerConfig } from '../../services/scheduler/src/config.ts';
import { loadServiceConfig as loadDispatcherConfig } from '../../services/webhook-dispatcher/src/config.ts';
import {
  gateway,
  get,
  isObj,
  list,
  networkServices,
  networkUrls,
  nodeFlags,
  obj,
  productionServices,
  readRepoFile,
  repoRoot,
  requiredEnv,
  str,
  workers,
  type Obj,
} from './deploy-facts.ts';

// The compose file uses YAML merge keys (`<<: *anchor`), which Docker Compose supports.
const compose = obj(parse(readRepoFile('docker-compose.yml'), { merge: true }), 'docker-compose.yml');
const services = obj(compose.services, 'services');

function service(name: string): Obj {
  return obj(services[name], `service ${name}`);
}

function environment(name: string): Record<string, string> {
  const env = obj(service(name).environment, `${name}.environment`);
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
}

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

const loaders: Record<string, (env: Record<string, string>) => unknown> = {
  gateway: loadGatewayConfig,
  accounts: loadAccountsConfig,
  publisher: loadPublisherConfig,
  scheduler: loadSchedulerConfig,
  'webhook-dispatcher': loadDispatcherConfig,
  'analytics-sync': loadAnalyticsConfig,
  billing: loadBillingConfig,
};

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

    it('waits for healthy infrastructure', () => {
      const dependsOn = obj(service(name).depends_on, `${name}.depends_on`);
      const needed = name === 'gateway' ? ['postgres', 'rabbitmq', 'redis'] : ['postgres', 'rabbitmq'];
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

    it('probes readiness on its own port and path', () => {
      const env = environment(name);
      const portVariable = facts.kind === 'api' ? 'PORT' : 'PROBE_PORT';
      expect(env[portVariable]).toBe(String(facts.port));
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

  it('publishes the gateway on 8080 and no worker port', () => {
    expect(list(service(gateway.name).ports, 'gateway.ports').map(String)).toContain('8080:8080');
    for (const worker of workers) expect(service(worker.name).ports).toBeUndefined();
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
      expect(environment(name).DATABASE_URL).toMatch(/\$\{POSTGRES_PASSWORD:\?/);
    }
    expect(readRepoFile('docker-compose.yml')).not.toMatch(
      /dev-only|AAAAAAAAAAAAAAAAAAAA|AQEBAQEBAQEBAQEBAQEB|placeholder|change[-_]?me/i,
    );
    expect(environment('webhook-dispatcher').VAULT_KEYS).not.toBe(environment('accounts').VAULT_KEYS);
  });

  it("scripts/compose-env writes every variable Compose requires, the dispatcher's own vault key included", () => {
    const { values, stderr } = composeEnv(stripeValues);
    expect(requiredByCompose).toEqual(
      expect.arrayContaining(['JWT_SECRET', 'WEBHOOK_VAULT_KEYS', 'STRIPE_SECRET_KEY', 'POSTGRES_PASSWORD']),
    );
    for (const variable of requiredByCompose)
      expect({ variable, written: (values[variable] ?? '') !== '' }).toEqual({ variable, written: true });
    expect(stderr).toBe('');
    for (const variable of ['VAULT_KEYS', 'WEBHOOK_VAULT_KEYS'])
      expect(Buffer.from(values[variable]!.slice(3), 'base64')).toHaveLength(32);
    expect(values.WEBHOOK_VAULT_KEYS).not.toBe(values.VAULT_KEYS);
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
      expect(() => loaders[code]!(env)).not.toThrow();
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

  it('defines no service beyond the infrastructure, the broker-users one-shot, the seven services (the publisher as its two roles) and the sandbox', () => {
    const expected = [
      'postgres',
      'rabbitmq',
      'broker-users',
      'redis',
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
});

/** Dockerfile instructions with line continuations joined and comments dropped. */
function dockerInstructions(text: string): { keyword: string; args: string }[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => {
      const space = line.indexOf(' ');
      return { keyword: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

describe('deploy/Dockerfile', () => {
  const instructions = dockerInstructions(readRepoFile('deploy/Dockerfile'));
  const stageStarts = instructions.flatMap((instruction, index) => (instruction.keyword === 'FROM' ? [index] : []));
  const finalStage = instructions.slice(stageStarts.at(-1));
  const buildStage = instructions.slice(0, stageStarts.at(-1));
  const runs = (stage: typeof instructions): string[] => stage.filter((i) => i.keyword === 'RUN').map((i) => i.args);

  it('is multi-stage on node:20-bookworm-slim', () => {
    expect(stageStarts.length).toBeGreaterThanOrEqual(2);
    for (const index of stageStarts) expect(instructions[index]?.args).toMatch(/^node:20-bookworm-slim(\s|$)/);
  });

  it('builds with the pinned pnpm: install, generate, build, in that order', () => {
    const packageManager = str(
      obj(JSON.parse(readRepoFile('package.json')), 'package.json').packageManager,
      'packageManager',
    );
    const script = runs(buildStage).join('\n');
    expect(script).toContain(`npm i -g ${packageManager}`);
    const steps = ['pnpm install --frozen-lockfile', 'pnpm generate', 'pnpm build'].map((step) => script.indexOf(step));
    expect(steps.every((position) => position >= 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });

  it('takes the service as ARG SERVICE in the runtime stage and links its entry point', () => {
    expect(finalStage.some((i) => i.keyword === 'ARG' && /^SERVICE(=|$)/.test(i.args))).toBe(true);
    expect(runs(finalStage).join('\n')).toMatch(/ln -s "?services\/\$\{SERVICE\}\/dist\/main\.js"? \/app\/main\.js/);
  });

  it('runs as a non-root user', () => {
    const user = finalStage.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
  });

  it('starts node directly with an exec-form CMD and stops on SIGTERM', () => {
    const cmd = finalStage.filter((i) => i.keyword === 'CMD').at(-1)?.args ?? '';
    const argv = list(JSON.parse(cmd), 'CMD').map(String);
    expect(argv).toEqual(['node', ...nodeFlags(), '/app/main.js']);
    expect(finalStage.some((i) => i.keyword === 'ENTRYPOINT')).toBe(false);
    expect(finalStage.find((i) => i.keyword === 'STOPSIGNAL')?.args).toBe('SIGTERM');
  });

  it.each(productionServices.map((facts) => [facts.name, facts.code]))(
    "runs %s with its V8 flags: its compose command, or the image's CMD when it has no flags of its own",
    (name, code) => {
      const cmd = list(JSON.parse(finalStage.filter((i) => i.keyword === 'CMD').at(-1)?.args ?? '[]'), 'CMD').map(
        String,
      );
      const command = service(name).command;
      const argv = command === undefined ? cmd : list(command, `${name} command`).map(String);
      expect(argv).toEqual(['node', ...nodeFlags(code), '/app/main.js']);
    },
  );

  it('gives node only flags it accepts on the command line (a bad flag would stop every container at start)', () => {
    for (const name of [undefined, ...productionServices.map((facts) => facts.code)]) {
      expect(
        execFileSync(process.execPath, [...nodeFlags(name), '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' }),
      ).toBe('ok');
    }
    expect(finalStage.some((i) => i.keyword === 'ENV' && i.args.includes('NODE_OPTIONS'))).toBe(false);
  });

  it('keeps local build output out of the build context', () => {
    const ignored = readRepoFile('deploy/Dockerfile.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
  });
});
