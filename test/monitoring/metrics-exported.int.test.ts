// Every metric an alert rule or a dashboard panel names must be exported by a service: the built
// services run as processes (as scripts/start and Kubernetes run them), each /metrics is scraped
// after they have handled a little traffic, and the names are compared with deploy/monitoring/.
import { systemPing } from '@svc/contracts';
import { waitFor } from '@svc/testing';
import { ProcessSystem, type RunningService } from '../support/process-system.ts';
import { alertRules, dashboardExpressions, metricNames } from './monitoring-files.ts';

const WORKERS = ['accounts', 'publisher', 'scheduler', 'webhook-dispatcher', 'analytics-sync', 'billing'];
let system: ProcessSystem;

/** The names a Prometheus exposition defines: counters and gauges as typed, histograms as their series. */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    else names.add(name!);
  }
  return names;
}

const scrape = async (service: RunningService) => (await fetch(`http://127.0.0.1:${service.probePort}/metrics`)).text();

beforeAll(async () => {
  system = await ProcessSystem.open('mon');
  // One after another: nine processes migrating and compiling at once starve a small machine's cores.
  for (const name of ['gateway', 'dashboard', ...WORKERS]) await system.start(name);
  // A short run: every service answers a request over RabbitMQ before it is scraped.
  for (const name of ['gateway', ...WORKERS])
    await system.broker.rpc(systemPing, {}, { orgId: null, requestId: 'monitoring', to: name, timeoutMs: 10_000 });
}, 400_000);

afterAll(() => system?.close(), 60_000);

describe('metrics named by deploy/monitoring', () => {
  it('are all exported by a running service', async () => {
    const exported = new Set<string>();
    for (const service of system.services) for (const name of exportedNames(await scrape(service))) exported.add(name);
    const named = new Set(
      [...alertRules().map((rule) => rule.expr), ...dashboardExpressions()].flatMap((expr) => metricNames(expr)),
    );
    expect(named.size).toBeGreaterThan(15);
    expect([...named].filter((name) => !exported.has(name)).sort()).toEqual([]);
  });

  it('queue depths and database pools are read from the live broker and pools in every worker', async () => {
    for (const name of WORKERS) {
      const service = system.service(name);
      const queue = `${system.namespace}.${name}.rpc`;
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
