import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { get, isObj, list, obj, readRepoFile, repoRoot, str, type Obj, type ServiceFacts } from './deploy-facts.ts';

// The manifests of k8s/ as `kubectl apply -k k8s/overlays/<overlay>` applies them (rendered by
// kubectl's kustomize), and what a container sees: read by test/deploy/k8s*.test.ts, keda.test.ts and
// the tests that run the services with the manifests' values. `applied` is the prod overlay.

export const k8sDir = join(repoRoot, 'k8s', 'base');
export const yamlFiles = readdirSync(k8sDir)
  .filter((file) => /\.ya?ml$/.test(file))
  .sort();
export const exampleSecretFile = 'secret.example.yaml';
export const overlays = ['dev', 'prod'] as const;
export type Overlay = (typeof overlays)[number];

export interface Resource {
  /** Where it comes from: a file of k8s/base, or the overlay it was rendered from. */
  file: string;
  kind: string;
  name: string;
  body: Obj;
}

function resourcesOf(yaml: string, file: string): Resource[] {
  return parseAllDocuments(yaml).flatMap((document) => {
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

export function loadResources(file: string): Resource[] {
  return resourcesOf(readRepoFile(join('k8s', 'base', file)), file);
}

/**
 * An overlay as kubectl renders it (`kubectl kustomize`, kustomize built into kubectl; Debian's
 * kubernetes-client package, which scripts/lib.sh installs when missing).
 */
export function render(overlay: Overlay): Resource[] {
  let yaml: string;
  try {
    yaml = execFileSync('kubectl', ['kustomize', join(repoRoot, 'k8s', 'overlays', overlay)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
  } catch (error) {
    throw new Error(
      `kubectl kustomize k8s/overlays/${overlay} failed (kubectl: apt-get install kubernetes-client): ${String((error as { stderr?: string }).stderr ?? error)}`,
    );
  }
  return resourcesOf(yaml, `overlays/${overlay}`);
}

export const kustomization = obj(parse(readRepoFile('k8s/base/kustomization.yaml')), 'kustomization.yaml');
export const overlayKustomization = (overlay: Overlay): Obj =>
  obj(parse(readRepoFile(`k8s/overlays/${overlay}/kustomization.yaml`)), `${overlay} kustomization.yaml`);
/** The base's own manifests (not the folders it includes, such as deploy/postgres). */
export const listedFiles = list(kustomization.resources, 'kustomization resources')
  .map((entry) => str(entry, 'resource'))
  .filter((entry) => /\.ya?ml$/.test(entry));
/** Everything the prod overlay applies. */
export const applied = render('prod');
/** Everything the dev overlay applies. */
export const appliedDev = render('dev');
/** The Secrets an operator creates from secret.example.yaml (placeholders only). */
export const exampleSecrets = loadResources(exampleSecretFile);

export function ofKind(kind: string): Resource[] {
  return applied.filter((resource) => resource.kind === kind);
}

export function find(kind: string, name: string): Resource {
  const found = applied.find((resource) => resource.kind === kind && resource.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

export function configMapData(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(obj(get(find('ConfigMap', name).body, 'data'), `ConfigMap ${name} data`)).map(([k, v]) => [
      k,
      String(v),
    ]),
  );
}

export function exampleSecret(name: string): Obj {
  const secret = exampleSecrets.find((resource) => resource.kind === 'Secret' && resource.name === name);
  if (!secret) throw new Error(`secret.example.yaml has no Secret ${name}`);
  return obj(secret.body.stringData, `Secret ${name} stringData`);
}

export function exampleSecretKeys(name: string): string[] {
  return Object.keys(exampleSecret(name));
}

/** A workload's one container. */
export function container(service: ServiceFacts): Obj {
  const containers = list(
    get(find('Deployment', service.name).body, 'spec.template.spec.containers'),
    `${service.name} containers`,
  );
  if (containers.length !== 1) throw new Error(`${service.name} has ${containers.length} containers, not one`);
  return obj(containers[0], `${service.name} container`);
}

export function podSpec(service: ServiceFacts): Obj {
  return obj(get(find('Deployment', service.name).body, 'spec.template.spec'), `${service.name} pod spec`);
}

export interface EnvSource {
  value?: string;
  secret?: { name: string; key: string };
  configMap?: string;
}

/** Every variable the container sees, and where it comes from (explicit env wins over envFrom). */
export function containerEnv(service: ServiceFacts): Map<string, EnvSource> {
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
      if (value !== undefined && typeof value !== 'string')
        throw new Error(`${service.name}: env ${name} is not a string (quote it)`);
      env.set(name, { value: typeof value === 'string' ? value : '' });
    }
  }
  return env;
}

/** A variable's value as the container sees it, unless it comes from a Secret. */
export function resolved(service: ServiceFacts, name: string): string | undefined {
  const source = containerEnv(service).get(name);
  if (source?.value !== undefined) return source.value;
  if (source?.configMap !== undefined) return configMapData(source.configMap)[name];
  return undefined;
}

/** What the container would see with secret.example.yaml applied as it is. */
export function exampleEnv(service: ServiceFacts): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, source] of containerEnv(service)) {
    if (source.secret !== undefined) env[name] = String(exampleSecret(source.secret.name)[source.secret.key]);
    else env[name] = source.value ?? configMapData(source.configMap ?? '')[name] ?? '';
  }
  return env;
}

/**
 * Where a URL inside the cluster (`http://<service>.social.svc.cluster.local[:port]/...`) arrives: the
 * Service it names, the workload its selector picks (`app.kubernetes.io/name`), and the container port
 * its targetPort names. Throws when any link is missing.
 */
export function clusterTarget(address: string): { service: string; workload: string; containerPort: number } {
  const url = new URL(address);
  const [serviceName, namespace, ...rest] = url.hostname.split('.');
  if (namespace !== 'social' || rest.join('.') !== 'svc.cluster.local')
    throw new Error(`${address} is not a Service of the social namespace`);
  const service = find('Service', serviceName!).body;
  const selector = obj(get(service, 'spec.selector'), `${serviceName} selector`);
  const workload = str(selector['app.kubernetes.io/name'], `${serviceName} selector`);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const servicePort = list(get(service, 'spec.ports'), `${serviceName} ports`).find(
    (entry) => get(entry, 'port') === port,
  );
  if (servicePort === undefined) throw new Error(`Service ${serviceName} has no port ${port}`);
  const deployment = find('Deployment', workload).body;
  const containers = list(get(deployment, 'spec.template.spec.containers'), `${workload} containers`);
  const named = containers
    .flatMap((entry) => list(get(entry, 'ports'), `${workload} ports`))
    .find((entry) => get(entry, 'name') === get(servicePort, 'targetPort'));
  if (named === undefined)
    throw new Error(`${workload} has no container port ${String(get(servicePort, 'targetPort'))}`);
  return { service: serviceName!, workload, containerPort: Number(get(named, 'containerPort')) };
}
