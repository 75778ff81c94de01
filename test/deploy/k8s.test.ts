import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import {
  consumedQueues,
  gateway,
  get,
  hasCredentials,
  isObj,
  list,
  looksSecret,
  networkUrls,
  num,
  obj,
  productionServices,
  nodeFlags,
  readRepoFile,
  registeredMetrics,
  repoRoot,
  requiredEnv,
  secretEnv,
  str,
  workers,
  workloadQueues,
  type Obj,
  type ServiceFacts,
} from './deploy-facts.ts';
import { serviceEntry } from '../support/service-process.ts';

const k8sDir = join(repoRoot, 'k8s');
const yamlFiles = readdirSync(k8sDir)
  .filter((file) => /\.ya?ml$/.test(file))
  .sort();
const exampleSecretFile = 'secret.example.yaml';

interface Resource {
  file: string;
  kind: string;
  name: string;
  body: Obj;
}

function loadResources(file: string): Resource[] {
  return parseAllDocuments(readRepoFile(join('k8s', file))).flatMap((document) => {
    if (document.errors.length > 0)
      throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
    const body: unknown = document.toJS();
    if (body === null || body === undefined) return [];
    const resource = obj(body, file);
    return [
      {
        file,
        kind: str(resource.kind, `${file} kind`),
        name: str(get(resource, 'metadata.name'), `${file} name`),
        body: resource,
      },
    ];
  });
}

const kustomization = obj(parse(readRepoFile('k8s/kustomization.yaml')), 'kustomization.yaml');
const listedFiles = list(kustomization.resources, 'kustomization resources').map((entry) => str(entry, 'resource'));
const applied = listedFiles.flatMap(loadResources);
const exampleSecrets = loadResources(exampleSecretFile);

function ofKind(kind: string): Resource[] {
  return applied.filter((resource) => resource.kind === kind);
}

function find(kind: string, name: string): Resource {
  const found = applied.find((resource) => resource.kind === kind && resource.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

function configMapData(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(obj(get(find('ConfigMap', name).body, 'data'), `ConfigMap ${name} data`)).map(([k, v]) => [
      k,
      String(v),
    ]),
  );
}

function exampleSecretKeys(name: string): string[] {
  const secret = exampleSecrets.find((resource) => resource.kind === 'Secret' && resource.name === name);
  if (!secret) throw new Error(`secret.example.yaml has no Secret ${name}`);
  return Object.keys(obj(secret.body.stringData, `Secret ${name} stringData`));
}

function container(service: ServiceFacts): Obj {
  const containers = list(
    get(find('Deployment', service.name).body, 'spec.template.spec.containers'),
    `${service.name} containers`,
  );
  expect(containers).toHaveLength(1);
  return obj(containers[0], `${service.name} container`);
}

function podSpec(service: ServiceFacts): Obj {
  return obj(get(find('Deployment', service.name).body, 'spec.template.spec'), `${service.name} pod spec`);
}

interface EnvSource {
  value?: string;
  secret?: { name: string; key: string };
  configMap?: string;
}

/** Every variable the container sees, and where it comes from (explicit env wins over envFrom). */
function containerEnv(service: ServiceFacts): Map<string, EnvSource> {
  const env = new Map<string, EnvSource>();
  for (const source of list(container(service).envFrom ?? [], 'envFrom')) {
    const configMap = get(source, 'configMapRef.name');
    const secret = get(source, 'secretRef.name');
    if (typeof configMap === 'string') {
      for (const key of Object.keys(configMapData(configMap))) env.set(key, { configMap });
    } else if (typeof secret === 'string') {
      for (const key of exampleSecretKeys(secret)) env.set(key, { secret: { name: secret, key } });
    } else {
      throw new Error(`${service.name}: unsupported envFrom entry`);
    }
  }
  for (const entry of list(container(service).env ?? [], 'env')) {
    const name = str(get(entry, 'name'), 'env name');
    const secretRef = get(entry, 'valueFrom.secretKeyRef');
    if (isObj(secretRef)) {
      env.set(name, { secret: { name: str(secretRef.name, 'secret name'), key: str(secretRef.key, 'secret key') } });
    } else {
      const value = get(entry, 'value');
      if (value !== undefined) expect(typeof value).toBe('string');
      env.set(name, { value: typeof value === 'string' ? value : '' });
    }
  }
  return env;
}

/** A Kubernetes quantity in bytes (`2560Mi`, `2Gi`). */
function bytesOf(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(quantity);
  if (match === null) throw new Error(`not a quantity: ${quantity}`);
  const units = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };
  return Number(match[1]) * units[(match[2] ?? '') as keyof typeof units];
}

function resolved(service: ServiceFacts, name: string): string | undefined {
  const source = containerEnv(service).get(name);
  if (source?.value !== undefined) return source.value;
  if (source?.configMap !== undefined) return configMapData(source.configMap)[name];
  return undefined;
}

describe('k8s/kustomization.yaml', () => {
  it('lists only files that exist', () => {
    for (const file of listedFiles) expect(existsSync(join(k8sDir, file))).toBe(true);
  });

  it('lists every manifest except the placeholder secrets', () => {
    const manifests = yamlFiles.filter((file) => file !== 'kustomization.yaml' && file !== exampleSecretFile);
    expect([...listedFiles].sort()).toEqual(manifests);
    expect(listedFiles).not.toContain(exampleSecretFile);
  });

  it('applies everything to the social namespace', () => {
    expect(kustomization.namespace).toBe('social');
    expect(find('Namespace', 'social')).toBeDefined();
    for (const resource of [...applied, ...exampleSecrets]) {
      if (resource.kind !== 'Namespace') expect(get(resource.body, 'metadata.namespace')).toBe('social');
    }
  });

  it('maps every Deployment image to a registry', () => {
    const images = list(kustomization.images, 'images').map((image) => str(get(image, 'name'), 'image name'));
    const used = new Set(productionServices.map((service) => str(container(service).image, `${service.name} image`)));
    expect([...images].sort()).toEqual([...used].sort());
  });
});

describe('k8s workloads', () => {
  it('has exactly one Deployment per production service and nothing for the sandbox', () => {
    expect(
      ofKind('Deployment')
        .map((resource) => resource.name)
        .sort(),
    ).toEqual(productionServices.map((s) => s.name).sort());
    for (const file of yamlFiles) expect(readRepoFile(join('k8s', file)).toLowerCase()).not.toContain('sandbox');
  });

  describe.each(productionServices.map((service) => [service.name, service] as const))('%s', (name, service) => {
    it('selects its own pods', () => {
      const deployment = find('Deployment', name).body;
      const selector = obj(get(deployment, 'spec.selector.matchLabels'), 'selector');
      const labels = obj(get(deployment, 'spec.template.metadata.labels'), 'labels');
      expect(selector).toEqual({ 'app.kubernetes.io/name': name });
      expect(labels).toMatchObject(selector);
      expect(get(deployment, 'spec.replicas')).toBeUndefined();
    });

    it('runs node, with its V8 flags (deploy/node-flags.<service> or deploy/node-flags), on the service entry point directly', () => {
      expect(container(service).command).toEqual([
        'node',
        ...nodeFlags(service.code),
        `services/${service.code}/dist/main.js`,
      ]);
      expect(container(service).image).toBe(`social-publishing/${service.code}`);
      expect(container(service).args).toBeUndefined();
    });

    it('has a termination grace period longer than the drain time (plus any preStop sleep)', () => {
      const grace = num(podSpec(service).terminationGracePeriodSeconds, 'terminationGracePeriodSeconds');
      const preStop = get(container(service), 'lifecycle.preStop.exec.command');
      const sleep = Array.isArray(preStop) && preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
      expect(grace).toBeGreaterThan(25);
      expect(grace * 1000).toBeGreaterThan(Number(resolved(service, 'SHUTDOWN_GRACE_MS')) + sleep * 1000);
    });

    it('sets resource requests and limits', () => {
      for (const part of ['requests', 'limits']) {
        for (const resource of ['cpu', 'memory']) {
          expect(get(container(service), `resources.${part}.${resource}`)).toEqual(expect.any(String));
        }
      }
    });

    it('runs as non-root with a read-only root filesystem and no extra privileges', () => {
      expect(get(podSpec(service), 'securityContext.runAsNonRoot')).toBe(true);
      expect(get(podSpec(service), 'securityContext.runAsUser')).not.toBe(0);
      const security = obj(container(service).securityContext, 'container securityContext');
      expect(security.allowPrivilegeEscalation).toBe(false);
      expect(security.readOnlyRootFilesystem).toBe(true);
      expect(get(security, 'capabilities.drop')).toEqual(['ALL']);
      expect(podSpec(service).automountServiceAccountToken).toBe(false);
    });

    it('probes liveness, readiness and startup on the right port and paths', () => {
      const probe = (kind: string): { path: unknown; port: unknown } => ({
        path: get(container(service), `${kind}.httpGet.path`),
        port: get(container(service), `${kind}.httpGet.port`),
      });
      expect(probe('livenessProbe')).toEqual({ path: service.liveness, port: service.port });
      expect(probe('readinessProbe')).toEqual({ path: service.readiness, port: service.port });
      expect(probe('startupProbe')).toEqual({ path: service.liveness, port: service.port });
      const ports = list(container(service).ports, 'ports').map((port) => get(port, 'containerPort'));
      expect(ports).toEqual([...new Set([service.port, service.metricsPort])]);
      expect(resolved(service, service.kind === 'api' ? 'PORT' : 'PROBE_PORT')).toBe(String(service.port));
      expect(resolved(service, 'PROBE_PORT')).toBe(String(service.metricsPort));
    });

    it('exposes /metrics on the probe port for Prometheus', () => {
      const annotations = obj(get(find('Deployment', name).body, 'spec.template.metadata.annotations'), 'annotations');
      expect(annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(service.metricsPort),
        'prometheus.io/path': '/metrics',
      });
    });

    it('gets every variable it needs, secrets from Secrets only', () => {
      const env = containerEnv(service);
      expect([...env.keys()]).toEqual(expect.arrayContaining(requiredEnv(service)));
      for (const [variable, source] of env) {
        if (looksSecret(variable)) {
          expect({ variable, secret: source.secret !== undefined }).toEqual({ variable, secret: true });
          expect(exampleSecretKeys(source.secret?.name ?? '')).toContain(source.secret?.key);
        } else {
          expect({ variable, secret: source.secret !== undefined }).toEqual({ variable, secret: false });
        }
      }
      expect(resolved(service, 'NODE_ENV')).toBe('production');
      expect(resolved(service, 'LOG_LEVEL')).toBe('info');
      expect(resolved(service, 'AMQP_NAMESPACE')).toBe('');
      expect(resolved(service, 'SHUTDOWN_GRACE_MS')).toBe('25000');
      expect(resolved(service, 'RPC_TIMEOUT_MS')).toBe('5000');
      for (const [variable, value] of Object.entries(service.env ?? {}))
        expect({ variable, value: resolved(service, variable) }).toEqual({ variable, value });
    });

    it('leaves the network base URLs to their production defaults', () => {
      const env = containerEnv(service);
      for (const variable of Object.keys(networkUrls)) expect(env.has(variable)).toBe(false);
    });

    it('has a PodDisruptionBudget that never blocks a drain', () => {
      const budget = find('PodDisruptionBudget', name).body;
      expect(budget.apiVersion).toBe('policy/v1');
      expect(get(budget, 'spec.selector.matchLabels')).toEqual({ 'app.kubernetes.io/name': name });
      expect(get(budget, 'spec.maxUnavailable')).toBe(1);
      expect(get(budget, 'spec.minAvailable')).toBeUndefined();
    });
  });

  it('runs the gateway behind a ClusterIP Service on port 8080', () => {
    const service = find('Service', gateway.name).body;
    expect(get(service, 'spec.selector')).toEqual({ 'app.kubernetes.io/name': gateway.name });
    const ports = list(get(service, 'spec.ports'), 'Service ports');
    expect(ports.map((port) => get(port, 'targetPort'))).toEqual(['http']);
    expect(list(container(gateway).ports, 'ports').map((port) => get(port, 'name'))).toEqual(['http', 'probes']);
    // The other Service only lets KEDA read analytics-sync's lag (the metrics-api trigger below).
    expect(
      ofKind('Service')
        .map((resource) => resource.name)
        .sort(),
    ).toEqual(['analytics-sync-metrics', gateway.name]);
  });

  it('drains the gateway from load balancers before it stops listening', () => {
    expect(get(container(gateway), 'lifecycle.preStop.exec.command')).toEqual(['sleep', '5']);
  });

  it('scales the gateway on CPU with an HPA and nothing else with an HPA', () => {
    const hpas = ofKind('HorizontalPodAutoscaler');
    expect(hpas.map((hpa) => get(hpa.body, 'spec.scaleTargetRef.name'))).toEqual([gateway.name]);
    const hpa = hpas[0]!.body;
    expect(get(hpa, 'spec.scaleTargetRef.kind')).toBe('Deployment');
    expect(num(get(hpa, 'spec.minReplicas'), 'minReplicas')).toBeGreaterThanOrEqual(2);
    expect(num(get(hpa, 'spec.maxReplicas'), 'maxReplicas')).toBeGreaterThan(
      num(get(hpa, 'spec.minReplicas'), 'minReplicas'),
    );
    const metric = list(get(hpa, 'spec.metrics'), 'metrics')[0];
    expect(get(metric, 'resource.name')).toBe('cpu');
  });
});

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
        const [serviceName, namespace, ...rest] = url.hostname.split('.');
        expect({ namespace, rest }).toEqual({ namespace: 'social', rest: ['svc', 'cluster', 'local'] });
        const target = find('Service', serviceName!).body;
        expect(get(target, 'spec.selector')).toEqual({ 'app.kubernetes.io/name': name });
        const port = list(get(target, 'spec.ports'), 'Service ports').find(
          (entry) => get(entry, 'port') === Number(url.port),
        );
        const namedPort = list(container(service).ports, 'ports').find(
          (entry) => get(entry, 'name') === get(port, 'targetPort'),
        );
        expect(get(namedPort, 'containerPort')).toBe(service.metricsPort);
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

describe('secrets and config', () => {
  it('keeps secrets out of ConfigMaps', () => {
    for (const configMap of ofKind('ConfigMap')) {
      for (const [key, value] of Object.entries(configMapData(configMap.name))) {
        expect({ configMap: configMap.name, key, secretName: looksSecret(key) }).toEqual({
          configMap: configMap.name,
          key,
          secretName: false,
        });
        expect({ configMap: configMap.name, key, credentials: hasCredentials(value) }).toEqual({
          configMap: configMap.name,
          key,
          credentials: false,
        });
      }
    }
  });

  it('applies no Secret: real ones are created by the operator from secret.example.yaml', () => {
    expect(ofKind('Secret')).toHaveLength(0);
  });

  it('ships only placeholder values in secret.example.yaml', () => {
    const values = exampleSecrets.flatMap((secret) =>
      Object.values(obj(secret.body.stringData, `${secret.name} stringData`)),
    );
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) expect(String(value)).toContain('CHANGE_ME');
    // AMQP_URL comes from one key per service: every service is its own broker user.
    const amqpKeys = productionServices.map((service) => `AMQP_URL_${service.code.toUpperCase().replace(/-/g, '_')}`);
    expect(exampleSecrets.flatMap((secret) => Object.keys(obj(secret.body.stringData, 'stringData')))).toEqual(
      expect.arrayContaining([...secretEnv.filter((name) => name !== 'AMQP_URL'), ...amqpKeys]),
    );
  });

  it('keeps media in S3 for the gateway and the publisher (pods share no disk), with room to spool uploads', () => {
    const media = configMapData('social-media');
    expect(media).toMatchObject({ MEDIA_STORAGE: 's3', MEDIA_TMP_DIR: expect.stringMatching(/^\/tmp\//) });
    expect(media.MEDIA_PUBLIC_BASE_URL).toMatch(/^https:\/\//);
    for (const service of productionServices.filter(
      (facts) => facts.code === 'gateway' || facts.code === 'publisher',
    )) {
      const sources = list(container(service).envFrom, `${service.name} envFrom`).map((source) =>
        get(source, 'configMapRef.name'),
      );
      expect(sources).toContain('social-media');
      const env = containerEnv(service);
      for (const key of ['MEDIA_S3_ACCESS_KEY_ID', 'MEDIA_S3_SECRET_ACCESS_KEY'])
        expect(env.get(key)?.secret?.name).toBe('social-media');
      const tmp = list(podSpec(service).volumes, `${service.name} volumes`).find(
        (volume) => get(volume, 'name') === 'tmp',
      );
      const sizeLimit = bytesOf(str(get(tmp, 'emptyDir.sizeLimit'), `${service.name} tmp sizeLimit`));
      // What concurrent ingests can spool: MEDIA_INGEST_CONCURRENCY x the largest per-type limit.
      const ingests =
        resolved(service, 'PUBLISHER_ROLES') === 'deliver'
          ? 0
          : Number(resolved(service, 'MEDIA_INGEST_CONCURRENCY') ?? 4);
      const largest = Number(resolved(service, 'MEDIA_MAX_VIDEO_BYTES') ?? 512 * 1024 * 1024);
      expect({ service: service.name, fits: sizeLimit >= ingests * largest }).toEqual({
        service: service.name,
        fits: true,
      });
    }
  });

  it('connects every service to RabbitMQ as its own user, over TLS, with caller checks on', () => {
    const infra = obj(
      exampleSecrets.find((secret) => secret.name === 'social-infra')?.body.stringData,
      'social-infra stringData',
    );
    for (const service of productionServices) {
      const key = `AMQP_URL_${service.code.toUpperCase().replace(/-/g, '_')}`;
      const url = new URL(str(infra[key], `${service.name} AMQP URL`));
      expect({ service: service.name, protocol: url.protocol, user: url.username }).toEqual({
        service: service.name,
        protocol: 'amqps:',
        user: service.code,
      });
      expect(containerEnv(service).get('AMQP_URL')?.secret).toEqual({ name: 'social-infra', key });
    }
    expect(configMapData('social-common').BROKER_USER_PREFIX).toBe('');
  });

  it('gives DATABASE_URL as a server URL without a database name', () => {
    const example = exampleSecrets.find((secret) => secret.name === 'social-infra')?.body;
    const url = new URL(str(get(example, 'stringData.DATABASE_URL'), 'DATABASE_URL'));
    expect(url.protocol).toMatch(/^postgres(ql)?:$/);
    expect(['', '/']).toContain(url.pathname);
  });

  it('names an active vault key that the example key list contains', () => {
    const example = exampleSecrets.find((secret) => secret.name === 'social-accounts')?.body;
    const ids = str(get(example, 'stringData.VAULT_KEYS'), 'VAULT_KEYS')
      .split(',')
      .map((entry) => entry.slice(0, entry.indexOf(':')));
    expect(ids).toContain(configMapData('social-accounts').VAULT_ACTIVE_KEY_ID);
  });
});

describe('the gateway behind the ingress', () => {
  it('trusts one proxy hop (the ingress controller) for client addresses, so clients do not share one anonymous bucket', () => {
    expect(resolved(gateway, 'TRUST_PROXY_HOPS')).toBe('1');
    expect(containerEnv(gateway).get('TRUST_PROXY_HOPS')).toEqual({ configMap: 'social-gateway' });
  });
});

describe('production start with the example secrets', () => {
  /** What the container would see with secret.example.yaml applied as it is. */
  function exampleEnv(service: ServiceFacts): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, source] of containerEnv(service)) {
      if (source.secret !== undefined) {
        const secret = exampleSecrets.find(
          (resource) => resource.kind === 'Secret' && resource.name === source.secret!.name,
        );
        env[name] = String(obj(secret?.body.stringData, `Secret ${source.secret.name}`)[source.secret.key]);
      } else {
        env[name] = source.value ?? configMapData(source.configMap ?? '')[name] ?? '';
      }
    }
    return env;
  }

  it.each(productionServices.map((facts) => [facts.name, facts] as const))(
    '%s refuses to start, naming every placeholder it was given',
    (name, facts) => {
      const env = exampleEnv(facts);
      expect(env.NODE_ENV).toBe('production');
      const placeholders = Object.entries(env)
        .filter(([, value]) => value.includes('CHANGE_ME'))
        .map(([variable]) => variable);
      expect(placeholders.length).toBeGreaterThan(0);
      // Only PATH from this process: nothing of the test environment may fill a gap.
      const run = spawnSync(process.execPath, [serviceEntry(facts.code)], {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect({ name, status: run.status }).toEqual({ name, status: 1 });
      expect(run.stderr).toContain(`${facts.code}: cannot start.`);
      for (const variable of placeholders)
        expect({ variable, named: run.stderr.includes(`- ${variable} `) }).toEqual({ variable, named: true });
    },
  );
});
