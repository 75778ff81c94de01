import { spawn } from 'node:child_process';
import pg from 'pg';
import { systemPing } from '@svc/contracts';
import { connectionConfig } from '@svc/db';
import { TEST_DATABASE_URL } from '@svc/testing';
import { processSecrets, ProcessSystem } from '../support/process-system.ts';
import { serviceEntry as entry, signalServiceProcess } from '../support/service-process.ts';

// The built services (dist/) run as real processes here, the way scripts/start and Kubernetes run them.
const WORKERS = ['accounts', 'publisher', 'scheduler', 'webhook-dispatcher', 'analytics-sync', 'billing'];
let system: ProcessSystem;

beforeAll(async () => {
  system = await ProcessSystem.open('sys');
  await Promise.all(['gateway', ...WORKERS].map((name) => system.start(name)));
}, 120_000);

afterAll(() => system?.close());

describe('every service as a process', () => {
  it.each(WORKERS)('%s serves liveness, readiness and Prometheus metrics', async (name) => {
    const { port } = system.service(name);
    expect(await (await fetch(`http://127.0.0.1:${port}/livez`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()).toEqual({ status: 'ready' });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain(`process_cpu_user_seconds_total{service="${name}"}`);
  });

  it('gateway serves /health and /ready on the API port, and /metrics on the probe port only', async () => {
    const { port, probePort } = system.service('gateway');
    expect(await (await fetch(`http://127.0.0.1:${port}/health`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`http://127.0.0.1:${port}/ready`)).status).toBe(200);
    // Memory, Node's version and per-route counts are for operators, not the public.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    expect(probePort).not.toBe(port);
    expect(await (await fetch(`http://127.0.0.1:${probePort}/metrics`)).text()).toContain('service="gateway"');
    expect(await (await fetch(`http://127.0.0.1:${probePort}/readyz`)).json()).toEqual({ status: 'ready' });
  });

  it.each(['gateway', ...WORKERS])('%s answers an RPC ping over RabbitMQ', async (name) => {
    const reply = await system.broker.rpc(
      systemPing,
      {},
      { orgId: null, requestId: 'ping-test', to: name, timeoutMs: 5000 },
    );
    expect(reply.service).toBe(name);
  });

  it('each service logs JSON with its service name and no secret', () => {
    for (const service of system.services) {
      const joined = service.lines.join('\n');
      for (const secret of Object.values(processSecrets)) expect(joined).not.toContain(secret);
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
        [system.services.map((s) => s.database)],
      );
      for (const service of system.services) {
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
    const worker = system.service('billing');
    expect(await signalServiceProcess(worker, 'SIGTERM')).toBe(0);
    expect(worker.lines.some((line) => line.includes('"msg":"stopped"'))).toBe(true);
  });
});

describe('configuration', () => {
  it('a missing or bad value stops start-up with one readable list of every problem', async () => {
    const child = spawn(process.execPath, [entry('gateway')], {
      env: { PATH: process.env.PATH, PORT: 'not-a-port', JWT_SECRET: processSecrets.JWT_SECRET },
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
