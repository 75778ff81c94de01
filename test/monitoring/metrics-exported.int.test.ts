// Every metric an alert rule or a dashboard panel names must be exported by a service: the built
// services run as processes (as scripts/start and Kubernetes run them), each /metrics is scraped
// after they have handled a little traffic, and the names are compared with deploy/monitoring/.
import { systemPing } from '@svc/contracts';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import {
  serviceQueues,
  TEST_AMQP_URL,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  uniqueName,
  uniqueNamespace,
  waitFor,
} from '@svc/testing';
import { signalServiceProcess, startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { alertRules, dashboardExpressions, metricNames } from './monitoring-files.ts';

const WORKERS = ['accounts', 'publisher', 'scheduler', 'webhook-dispatcher', 'analytics-sync', 'billing'];
const namespace = uniqueNamespace('mon');
const runId = uniqueName('mon');
const vaultKeys = `k1:${Buffer.alloc(32, 9).toString('base64')}`;
const envOf: Record<string, Record<string, string>> = {
  gateway: {
    JWT_SECRET: 'monitoring-test-secret-of-32-characters!',
    API_KEY_PEPPER: 'monitoring-test-pepper-of-32-characters!',
  },
  accounts: { VAULT_KEYS: vaultKeys, OAUTH_STATE_SECRET: 'monitoring-test-state-secret-32-chars!!' },
  'webhook-dispatcher': { VAULT_KEYS: vaultKeys },
  dashboard: { VAULT_KEYS: vaultKeys, DASHBOARD_PORT: '0' },
};

interface Running extends ServiceProcess {
  database: string;
}

const services: Running[] = [];
let broker: Broker;

async function start(name: string): Promise<Running> {
  const database = `${runId}_${name.replace(/-/g, '_')}`;
  const running = await startServiceProcess(name, {
    AMQP_URL: TEST_AMQP_URL,
    AMQP_NAMESPACE: namespace,
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_NAME: database,
    REDIS_URL: TEST_REDIS_URL,
    SHUTDOWN_GRACE_MS: '10000',
    ...envOf[name],
  });
  return { ...running, database };
}

/** The names a Prometheus exposition defines: counters and gauges as typed, histograms as their series. */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name!);
  }
  return names;
}

const scrape = async (service: Running) => (await fetch(`http://127.0.0.1:${service.probePort}/metrics`)).text();

beforeAll(async () => {
  // First, so that the teardown deletes the namespace's queues even when a service fails to start.
  broker = await Broker.connect({
    url: TEST_AMQP_URL,
    namespace,
    service: 'monitoring-test',
    logger: createLogger({ service: 'monitoring-test', level: 'silent' }),
  });
  // One after another: nine processes migrating and compiling at once starve a small machine's cores.
  for (const name of ['gateway', 'dashboard', ...WORKERS]) services.push(await start(name));
  // A short run: every service answers a request over RabbitMQ before it is scraped.
  for (const name of ['gateway', ...WORKERS])
    await broker.rpc(systemPing, {}, { orgId: null, requestId: 'monitoring', to: name, timeoutMs: 10_000 });
}, 400_000);

afterAll(async () => {
  await Promise.all(services.map((service) => signalServiceProcess(service, 'SIGTERM')));
  await broker?.deleteTopology({ queues: serviceQueues(['gateway', ...WORKERS]) });
  await broker?.close();
  await Promise.all(services.map((s) => dropDatabase(connectionConfig(TEST_DATABASE_URL, s.database))));
}, 60_000);

describe('metrics named by deploy/monitoring', () => {
  it('are all exported by a running service', async () => {
    const exported = new Set<string>();
    for (const service of services) for (const name of exportedNames(await scrape(service))) exported.add(name);
    const named = new Set(
      [...alertRules().map((rule) => rule.expr), ...dashboardExpressions()].flatMap((expr) => metricNames(expr)),
    );
    expect(named.size).toBeGreaterThan(15);
    expect([...named].filter((name) => !exported.has(name)).sort()).toEqual([]);
  });

  it('queue depths and database pools are read from the live broker and pools in every worker', async () => {
    for (const name of WORKERS) {
      const service = services.find((s) => s.name === name)!;
      const queue = `${namespace}.${name}.rpc`;
      // The RPC ping above went through this queue, which the service consumes with one consumer.
      await waitFor(
        async () => (await scrape(service)).includes(`svc_queue_consumers{queue="${queue}",service="${name}"} 1`),
        { what: `${name}'s depth of ${queue}` },
      );
      expect(await scrape(service)).toMatch(
        new RegExp(`^svc_db_pool_max\\{pool="main",service="${name}"\\} \\d+$`, 'm'),
      );
    }
  });
});
