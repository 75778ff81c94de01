import { spawn } from 'node:child_process';
import pg from 'pg';
import { systemPing } from '@svc/contracts';
import { dropDatabase, connectionConfig } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import {
  serviceQueues,
  TEST_AMQP_URL,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  uniqueName,
  uniqueNamespace,
} from '@svc/testing';
import {
  serviceEntry as entry,
  signalServiceProcess,
  startServiceProcess,
  type ServiceProcess,
} from '../support/service-process.ts';

// The built services (dist/) run as real processes here, the way scripts/start and Kubernetes run them.
const WORKERS = ['accounts', 'publisher', 'scheduler', 'webhook-dispatcher', 'analytics-sync', 'billing'];
const namespace = uniqueNamespace('sys');
const runId = uniqueName('sys');

interface Running extends ServiceProcess {
  database: string;
}

async function start(name: string, env: Record<string, string>): Promise<Running> {
  const database = `${runId}_${name.replace(/-/g, '_')}`;
  const running = await startServiceProcess(name, {
    AMQP_URL: TEST_AMQP_URL,
    AMQP_NAMESPACE: namespace,
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_NAME: database,
    REDIS_URL: TEST_REDIS_URL,
    SHUTDOWN_GRACE_MS: '10000',
    ...env,
  });
  return { ...running, database };
}

const stop = (service: Running) => signalServiceProcess(service, 'SIGTERM');

const accountsEnv = {
  VAULT_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  OAUTH_STATE_SECRET: 'system-test-state-secret-of-32-characters',
};
const gatewayEnv = {
  JWT_SECRET: 'system-test-secret-of-at-least-32-chars!',
  API_KEY_PEPPER: 'system-test-pepper-of-at-least-32-chars!',
};
let services: Running[] = [];
let broker: Broker;

beforeAll(async () => {
  const vaultEnv = (name: string): Record<string, string> =>
    name === 'accounts' ? accountsEnv : name === 'webhook-dispatcher' ? { VAULT_KEYS: accountsEnv.VAULT_KEYS } : {};
  services = await Promise.all([start('gateway', gatewayEnv), ...WORKERS.map((name) => start(name, vaultEnv(name)))]);
  broker = await Broker.connect({
    url: TEST_AMQP_URL,
    namespace,
    service: 'system-test',
    logger: createLogger({ service: 'system-test', level: 'silent' }),
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(services.map(stop));
  // The processes are gone; their queues are not (quorum queues outlive them).
  await broker?.deleteTopology({ queues: serviceQueues(['gateway', ...WORKERS]) });
  await broker?.close();
  await Promise.all(services.map((s) => dropDatabase(connectionConfig(TEST_DATABASE_URL, s.database))));
});

describe('every service as a process', () => {
  it.each(WORKERS)('%s serves liveness, readiness and Prometheus metrics', async (name) => {
    const { port } = services.find((s) => s.name === name)!;
    expect(await (await fetch(`http://127.0.0.1:${port}/livez`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({ status: 'ready' });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain(`process_cpu_user_seconds_total{service="${name}"}`);
  });

  it('gateway serves /health and /ready on the API port, and /metrics on the probe port only', async () => {
    const { port, probePort } = services.find((s) => s.name === 'gateway')!;
    expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
    // Memory, Node's version and per-route counts are for operators, not the public.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    expect(probePort).not.toBe(port);
    expect(await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text()).toContain('service="gateway"');
    expect(await (await fetch(`http://127.0.0.1:${probePort}/readyz`)).json()).toEqual({ status: 'ready' });
  });

  it.each(['gateway', ...WORKERS])('%s answers an RPC ping over RabbitMQ', async (name) => {
    const reply = await broker.rpc(systemPing, {}, { orgId: null, requestId: 'ping-test', to: name, timeoutMs: 5000 });
    expect(reply.service).toBe(name);
  });

  it('each service logs JSON with its service name and no secret', () => {
    for (const service of services) {
      const joined = service.lines.join('\n');
      expect(joined).not.toContain(gatewayEnv.JWT_SECRET);
      expect(joined).not.toContain(gatewayEnv.API_KEY_PEPPER);
      const first = JSON.parse(service.lines[0]!) as { service: string };
      expect(first.service).toBe(service.name);
    }
  });

  it('names every database connection after its service and pool, so an operator can tell who holds them', async () => {
    const admin = new pg.Client(connectionConfig(TEST_DATABASE_URL, 'postgres'));
    await admin.connect();
    try {
      const { rows } = await admin.query<{ database: string; name: string }>(
        'SELECT datname AS database, application_name AS name FROM pg_stat_activity WHERE datname = ANY($1)',
        [services.map((s) => s.database)],
      );
      for (const service of services) {
        const names = rows.filter((row) => row.database === service.database).map((row) => row.name);
        expect(names).toContain(`${service.name}/listen`);
        for (const name of names)
          expect(name).toMatch(new RegExp(`^${service.name}(/(relay|listen|hot|delivery|accept))?$`));
      }
    } finally {
      await admin.end();
    }
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    const worker = services.find((s) => s.name === 'billing')!;
    expect(await stop(worker)).toBe(0);
    expect(worker.lines.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
  });
});

describe('configuration', () => {
  it('a missing or bad value stops start-up with one readable list of every problem', async () => {
    const child = spawn(process.execPath, [entry('gateway')], {
      env: { PATH: process.env.PATH, PORT: 'not-a-port', JWT_SECRET: gatewayEnv.JWT_SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('gateway: cannot start.');
    expect(stderr).toContain('Invalid configuration:');
    expect(stderr).toContain('  - API_KEY_PEPPER is required but not set');
    expect(stderr).toMatch(/ {2}- PORT must be integer/);
  });
});
