import {
  consumedQueues,
  deployedServices,
  get,
  list,
  num,
  obj,
  registeredMetrics,
  str,
  workers,
  workloadQueues,
  type Obj,
} from './deploy-facts.ts';
import { clusterTarget, exampleSecretKeys, exampleSecrets, find, ofKind, overlays, render } from './k8s-manifests.ts';

// The KEDA ScaledObjects of the rendered overlays against the queues the code declares and what each
// worker consumes and registers.
describe('KEDA scaling', () => {
  const scaledObjects = ofKind('ScaledObject');
  /** Load no queue holds: analytics' readings wait in its database until due. */
  const expectedMetricTriggers: Record<string, number> = { 'analytics-sync': 1 };

  it('knows which queues each worker consumes (what the triggers are checked against)', () => {
    expect(consumedQueues('publisher')).toEqual([
      'svc.publisher.accounts',
      'svc.publisher.dispatch',
      'svc.publisher.plans',
      'svc.publisher.rpc',
      'svc.publisher.work',
    ]);
    expect(consumedQueues('webhook-dispatcher')).toEqual([
      'svc.webhook-dispatcher.deliveries',
      'svc.webhook-dispatcher.rpc',
      'svc.webhook-dispatcher.tests.rpc',
      'svc.webhook-dispatcher.work',
    ]);
    expect(consumedQueues('billing')).toEqual(['svc.billing.rpc']);
    // The publisher's roles between them consume every queue its code does; only delivering consumes its work queue.
    const publisherRoles = workers.filter((worker) => worker.code === 'publisher');
    expect([...new Set(publisherRoles.flatMap(workloadQueues))].sort()).toEqual(consumedQueues('publisher'));
    expect(
      publisherRoles
        .filter((worker) => workloadQueues(worker).includes('svc.publisher.work'))
        .map((worker) => worker.name),
    ).toEqual(['publisher-deliver']);
  });

  it('scales, in both overlays, only on queues the code declares, each consumed by the workload it scales', () => {
    // A queue nobody declares is a 404 from the management API: KEDA would never scale the worker.
    const declared = new Set(deployedServices.flatMap(consumedQueues));
    for (const overlay of overlays) {
      for (const resource of render(overlay).filter((entry) => entry.kind === 'ScaledObject')) {
        const target = str(get(resource.body, 'spec.scaleTargetRef.name'), 'scaleTargetRef');
        const worker = workers.find((facts) => facts.name === target);
        expect({ overlay, target, worker: worker !== undefined }).toEqual({ overlay, target, worker: true });
        for (const trigger of list(get(resource.body, 'spec.triggers'), 'triggers')) {
          if (get(trigger, 'type') !== 'rabbitmq') continue;
          const queue = get(trigger, 'metadata.queueName');
          expect({ overlay, target, queue, declared: declared.has(str(queue, 'queueName')) }).toEqual({
            overlay,
            target,
            queue,
            declared: true,
          });
          expect(workloadQueues(worker!)).toContain(queue);
        }
      }
    }
  });

  it('has one ScaledObject per worker and none for the gateway', () => {
    expect(scaledObjects.map((resource) => get(resource.body, 'spec.scaleTargetRef.name')).sort()).toEqual(
      workers.map((w) => w.name).sort(),
    );
  });

  describe.each(workers.map((worker) => [worker.name, worker] as const))('%s', (name, service) => {
    const scaledObject = (): Obj => {
      const found = scaledObjects.find((resource) => get(resource.body, 'spec.scaleTargetRef.name') === name);
      if (!found) throw new Error(`no ScaledObject for ${name}`);
      return found.body;
    };

    it('scales on the length of queues the service consumes, through the management API', () => {
      // A queue nobody declares is a 404 from the management API: KEDA would never scale the worker.
      const consumed = workloadQueues(service);
      const triggers = list(get(scaledObject(), 'spec.triggers'), 'triggers').filter(
        (trigger) => get(trigger, 'type') !== 'metrics-api',
      );
      const queueLength = triggers.filter((trigger) => get(trigger, 'metadata.mode') === 'QueueLength');
      expect(queueLength.length).toBeGreaterThan(0);
      for (const trigger of queueLength) expect(Number(get(trigger, 'metadata.value'))).toBeGreaterThan(0);
      for (const trigger of triggers) {
        expect(get(trigger, 'type')).toBe('rabbitmq');
        expect(get(trigger, 'metadata.protocol')).toBe('http');
        expect(consumed).toContain(get(trigger, 'metadata.queueName'));
        expect(typeof get(trigger, 'metadata.value')).toBe('string');
        const auth = str(get(trigger, 'authenticationRef.name'), 'authenticationRef');
        expect(find('TriggerAuthentication', auth)).toBeDefined();
      }
    });

    it('scales on any gauge it reads through a Service of its own pods, a metric the service registers', () => {
      // A wrong port, path or metric name is an error in KEDA, not a failed deploy: the worker would
      // silently stop scaling on that load.
      const triggers = list(get(scaledObject(), 'spec.triggers'), 'triggers').filter(
        (trigger) => get(trigger, 'type') === 'metrics-api',
      );
      expect(triggers.length).toBe(expectedMetricTriggers[name] ?? 0);
      for (const trigger of triggers) {
        const url = new URL(str(get(trigger, 'metadata.url'), 'url'));
        expect(clusterTarget(url.href)).toMatchObject({ workload: name, containerPort: service.metricsPort });
        expect(url.pathname).toBe('/metrics');
        expect(get(trigger, 'metadata.format')).toBe('prometheus');
        expect(registeredMetrics(service.code)).toContain(get(trigger, 'metadata.valueLocation'));
        expect(get(trigger, 'metricType')).toBe('Value');
        expect(Number(get(trigger, 'metadata.targetValue'))).toBeGreaterThan(0);
      }
    });

    it('keeps at least one replica and bounds the maximum', () => {
      const spec = obj(scaledObject().spec, 'spec');
      expect(spec.minReplicaCount).toBe(1);
      expect(num(spec.maxReplicaCount, 'maxReplicaCount')).toBeGreaterThan(1);
      expect(num(spec.cooldownPeriod, 'cooldownPeriod')).toBeGreaterThan(0);
    });
  });

  it('authenticates to the management API with a URL kept in a Secret', () => {
    for (const auth of ofKind('TriggerAuthentication')) {
      for (const ref of list(get(auth.body, 'spec.secretTargetRef'), 'secretTargetRef')) {
        expect(get(ref, 'parameter')).toBe('host');
        expect(exampleSecretKeys(str(get(ref, 'name'), 'secret name'))).toContain(get(ref, 'key'));
      }
    }
    const host = exampleSecrets.find((resource) => resource.name === 'keda-rabbitmq-management')?.body;
    expect(str(get(host, 'stringData.host'), 'host')).toMatch(/^http:\/\/.+:15672\//);
  });
});
