import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { JWT_AUDIENCE } from '../../services/dashboard/src/domain/token-minter.ts';
import {
  apis,
  dashboard,
  gateway,
  get,
  list,
  looksSecret,
  networkUrls,
  num,
  obj,
  productionServices,
  nodeFlags,
  readRepoFile,
  requiredEnv,
  serviceConfig,
  str,
} from './deploy-facts.ts';
import {
  applied,
  clusterTarget,
  container,
  containerEnv,
  exampleEnv,
  exampleSecretFile,
  exampleSecretKeys,
  exampleSecrets,
  find,
  k8sDir,
  appliedDev,
  kustomization,
  listedFiles,
  overlayKustomization,
  ofKind,
  podSpec,
  resolved,
  yamlFiles,
} from './k8s-manifests.ts';
import { serviceEntry } from '../support/service-process.ts';

describe('k8s/base and its overlays', () => {
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
    for (const resource of [...applied, ...appliedDev, ...exampleSecrets]) {
      if (resource.kind !== 'Namespace') expect(get(resource.body, 'metadata.namespace')).toBe('social');
    }
  });

  it('maps every Deployment image to a registry in prod, all with one release tag', () => {
    const images = list(overlayKustomization('prod').images, 'images');
    const used = new Set(productionServices.map((service) => `social-publishing/${service.code}`));
    expect(images.map((image) => str(get(image, 'name'), 'image name')).sort()).toEqual([...used].sort());
    expect(new Set(images.map((image) => get(image, 'newTag'))).size).toBe(1);
    for (const image of images) expect(str(get(image, 'newName'), 'newName')).toMatch(/^[a-z0-9.-]+\.[a-z]+\//);
    for (const service of productionServices)
      expect(container(service).image).toBe(
        `registry.example.com/social-publishing/${service.code}:${String(get(images[0], 'newTag'))}`,
      );
  });
});

describe('k8s workloads', () => {
  it('has exactly one Deployment per production service and nothing for the sandbox', () => {
    expect(
      ofKind('Deployment')
        .map((resource) => resource.name)
        .sort(),
    ).toEqual(productionServices.map((s) => s.name).sort());
    for (const file of yamlFiles)
      expect(readRepoFile(join('k8s', 'base', file)).toLowerCase()).not.toContain('sandbox');
    expect(JSON.stringify(applied.map((resource) => resource.body)).toLowerCase()).not.toContain('sandbox');
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
      expect(container(service).image).toMatch(new RegExp(`/social-publishing/${service.code}:[^:/]+$`));
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
      expect(resolved(service, service.portVariable)).toBe(String(service.port));
      expect(resolved(service, 'PROBE_PORT')).toBe(String(service.metricsPort));
    });

    it('sets only variables its service reads', () => {
      const declared = serviceConfig(service.code).variables;
      const unread = [...containerEnv(service).keys()].filter((variable) => !(variable in declared));
      expect(unread).toEqual([]);
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

  it('runs a ClusterIP Service per API and one more Service, for KEDA', () => {
    // The other Service only lets KEDA read analytics-sync's lag (the metrics-api trigger below).
    expect(
      ofKind('Service')
        .map((resource) => resource.name)
        .sort(),
    ).toEqual(['analytics-sync-metrics', ...apis.map((api) => api.name)].sort());
  });

  describe.each(apis.map((api) => [api.name, api] as const))('the API %s', (name, api) => {
    it('is behind a ClusterIP Service on port 80, to its own port only', () => {
      const service = find('Service', name).body;
      expect(get(service, 'spec.type')).toBe('ClusterIP');
      expect(get(service, 'spec.selector')).toEqual({ 'app.kubernetes.io/name': name });
      const ports = list(get(service, 'spec.ports'), 'Service ports');
      expect(ports.map((port) => [get(port, 'port'), get(port, 'targetPort')])).toEqual([[80, 'http']]);
      expect(list(container(api).ports, 'ports').map((port) => get(port, 'name'))).toEqual(['http', 'probes']);
      expect(clusterTarget(`http://${name}.social.svc.cluster.local/`)).toEqual({
        service: name,
        workload: name,
        containerPort: api.port,
      });
    });

    it('drains from load balancers before it stops listening', () => {
      expect(get(container(api), 'lifecycle.preStop.exec.command')).toEqual(['sleep', '5']);
    });

    it('scales on CPU with an HPA of at least two replicas', () => {
      const hpa = ofKind('HorizontalPodAutoscaler').find(
        (resource) => get(resource.body, 'spec.scaleTargetRef.name') === name,
      )?.body;
      expect(get(hpa, 'spec.scaleTargetRef.kind')).toBe('Deployment');
      expect(num(get(hpa, 'spec.minReplicas'), 'minReplicas')).toBeGreaterThanOrEqual(2);
      expect(num(get(hpa, 'spec.maxReplicas'), 'maxReplicas')).toBeGreaterThan(
        num(get(hpa, 'spec.minReplicas'), 'minReplicas'),
      );
      const metric = list(get(hpa, 'spec.metrics'), 'metrics')[0];
      expect(get(metric, 'resource.name')).toBe('cpu');
    });

    it('trusts one proxy hop (the ingress controller) for client addresses, so clients do not share one anonymous bucket', () => {
      expect(resolved(api, 'TRUST_PROXY_HOPS')).toBe('1');
      expect(containerEnv(api).get('TRUST_PROXY_HOPS')).toEqual({ configMap: `social-${name}` });
    });
  });

  it('has an HPA for the APIs only: KEDA scales the workers', () => {
    expect(
      ofKind('HorizontalPodAutoscaler')
        .map((hpa) => get(hpa.body, 'spec.scaleTargetRef.name'))
        .sort(),
    ).toEqual(apis.map((api) => api.name).sort());
  });
});

describe('the gateway and the dashboard', () => {
  it("point the gateway at the dashboard's signing keys, issuer and audience", () => {
    const jwks = new URL(resolved(gateway, 'JWT_JWKS_URL') ?? '');
    expect(jwks.pathname).toBe('/.well-known/jwks.json');
    expect(clusterTarget(jwks.href)).toMatchObject({ workload: dashboard.name, containerPort: dashboard.port });
    expect(resolved(gateway, 'JWT_ISSUER')).toBe(resolved(dashboard, 'DASHBOARD_ISSUER'));
    expect(resolved(gateway, 'JWT_AUDIENCE')).toBe(JWT_AUDIENCE);
  });

  it("point the dashboard's /api at the gateway's Service", () => {
    const url = resolved(dashboard, 'GATEWAY_URL') ?? '';
    expect(clusterTarget(url)).toMatchObject({ workload: gateway.name, containerPort: gateway.port });
  });

  it('give the dashboard an https public address, through which an OAuth connect returns to its Accounts page', () => {
    const publicUrl = new URL(resolved(dashboard, 'DASHBOARD_PUBLIC_URL') ?? '');
    expect(publicUrl.protocol).toBe('https:');
    // The network's redirect reaches the API's address, where the hand-off page set the flow cookie.
    const accounts = productionServices.find((facts) => facts.name === 'accounts')!;
    expect(resolved(accounts, 'PUBLIC_BASE_URL')).toBe(resolved(gateway, 'PUBLIC_BASE_URL'));
    expect(resolved(gateway, 'OAUTH_SUCCESS_REDIRECT')).toBe(`${publicUrl.origin}/accounts`);
  });
});

describe('production start with the example secrets', () => {
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
