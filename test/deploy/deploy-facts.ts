import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventSubscriptions, messageCatalog } from '@svc/contracts';
import { createNames } from '@svc/messaging';
import { nodeFlagsFile } from '../support/service-process.ts';

/** Repository root, from test/deploy/. */
export const repoRoot = join(__dirname, '..', '..');

export function readRepoFile(relativePath: string): string {
  return readFileSync(join(repoRoot, relativePath), 'utf8');
}

/**
 * The V8 flags a service runs with: `deploy/node-flags.<service>` where it has its own (its
 * Kubernetes command and its compose `command`), `deploy/node-flags` otherwise and for the image's CMD.
 */
export function nodeFlags(service?: string): string[] {
  return readFileSync(nodeFlagsFile(service), 'utf8').trim().split(/\s+/);
}

/** Services never deployed: the sandbox fakes the networks, for development and tests only. */
export const developmentOnly = ['sandbox'];

/** Every service of the repository: each folder of services/ with a package.json, by name. */
export const repositoryServices: string[] = readdirSync(join(repoRoot, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(repoRoot, 'services', entry.name, 'package.json')))
  .map((entry) => entry.name)
  .sort();

/** The services a deployment runs: every one but the development-only ones. */
export const deployedServices: string[] = repositoryServices.filter((service) => !developmentOnly.includes(service));

/** What the deployment files are checked against in a service's config module (services/<s>/src/config.ts). */
export interface ServiceConfig {
  /** Its variables, each with its JSON Schema (TypeBox) and default when it has one. */
  variables: Record<string, { default?: unknown }>;
  /** Its loader: throws, listing every problem, on a bad or missing value (production checks included). */
  load: (env: Record<string, string>) => unknown;
}

/** A service's config schema and loader, found by their export names (`configSchema`, `load...Config`). */
export function serviceConfig(service: string): ServiceConfig {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exported = require(join(repoRoot, 'services', service, 'src', 'config.ts')) as Record<string, unknown>;
  const schema = Object.entries(exported).find(([name]) => /(^c|C)onfigSchema$/.test(name))?.[1];
  const load = Object.entries(exported).find(([name]) => /^load\w*Config$/.test(name))?.[1];
  const variables = get(schema, 'properties');
  if (!isObj(variables) || typeof load !== 'function')
    throw new Error(`services/${service}/src/config.ts exports no configSchema and load...Config`);
  return { variables: variables as ServiceConfig['variables'], load: load as ServiceConfig['load'] };
}

function defaultPort(service: string, variable: string): number {
  const port = serviceConfig(service).variables[variable]?.default;
  if (typeof port !== 'number') throw new Error(`${service}: ${variable} has no default port`);
  return port;
}

/** A workload the deployment artefacts must run, with its probe endpoints. */
export interface ServiceFacts {
  /** The workload's name: its Deployment, its compose service. */
  name: string;
  /** The service whose code, image, broker user and database it runs: its name, unless it runs some roles of a service. */
  code: string;
  /** Values it must be given: the roles it runs (PUBLISHER_ROLES). */
  env?: Record<string, string>;
  /** The queues it consumes, when it runs some roles of its service: a part of what the service's code consumes. */
  queues?: string[];
  /** `api`: an HTTP server of its own (behind a Service); `worker`: only the probe server. */
  kind: 'api' | 'worker';
  /** The variable of the port its probes call: an API's own (PORT, DASHBOARD_PORT), a worker's PROBE_PORT. */
  portVariable: string;
  port: number;
  liveness: string;
  readiness: string;
  /** Where Prometheus scrapes /metrics: the probe port, never the public API port. */
  metricsPort: number;
}

/**
 * A service's facts, from its config schema. It is an API when it declares a port to listen on
 * besides PROBE_PORT (the gateway's PORT, the dashboard's DASHBOARD_PORT): liveness and readiness are
 * /health and /ready there. Otherwise it is a worker: /livez and /readyz on its probe port. Either
 * way /metrics is on PROBE_PORT, and the ports are the schema's defaults.
 */
export function serviceFacts(service: string): ServiceFacts {
  const metricsPort = defaultPort(service, 'PROBE_PORT');
  const apiPort = Object.keys(serviceConfig(service).variables).find(
    (variable) => /(^|_)PORT$/.test(variable) && variable !== 'PROBE_PORT',
  );
  if (apiPort !== undefined)
    return {
      name: service,
      code: service,
      kind: 'api',
      portVariable: apiPort,
      port: defaultPort(service, apiPort),
      liveness: '/health',
      readiness: '/ready',
      metricsPort,
    };
  return {
    name: service,
    code: service,
    kind: 'worker',
    portVariable: 'PROBE_PORT',
    port: metricsPort,
    liveness: '/livez',
    readiness: '/readyz',
    metricsPort,
  };
}

/** Services deployed as several workloads, one per role; every other service is one workload of its name. */
const roleWorkloads: Record<string, Pick<ServiceFacts, 'name' | 'env' | 'queues'>[]> = {
  // The publisher's two roles, each a workload of its own scaled by its own queue (docs/performance.md,
  // "Accepting and delivering in processes of their own"); both consume account changes.
  publisher: [
    {
      name: 'publisher',
      env: { PUBLISHER_ROLES: 'accept' },
      queues: ['svc.publisher.accounts', 'svc.publisher.dispatch', 'svc.publisher.plans', 'svc.publisher.rpc'],
    },
    {
      name: 'publisher-deliver',
      env: { PUBLISHER_ROLES: 'deliver' },
      queues: ['svc.publisher.accounts', 'svc.publisher.work'],
    },
  ],
};

/** Every workload of every deployed service: what compose and Kubernetes must both run. */
export const productionServices: ServiceFacts[] = deployedServices.flatMap((service) => {
  const facts = serviceFacts(service);
  return (roleWorkloads[service] ?? [{ name: service }]).map((role) => ({ ...facts, ...role }));
});

export const apis = productionServices.filter((facts) => facts.kind === 'api');
export const workers = productionServices.filter((facts) => facts.kind === 'worker');

function workload(name: string): ServiceFacts {
  const found = productionServices.find((facts) => facts.name === name);
  if (found === undefined) throw new Error(`no deployed workload ${name}`);
  return found;
}

/** The two APIs the wiring tests name: the public API, and the dashboard whose JWTs it accepts. */
export const gateway = workload('gateway');
export const dashboard = workload('dashboard');

/** A service's own TypeScript sources (not its generated Prisma client). */
function serviceSources(service: string): string[] {
  const dir = join(repoRoot, 'services', service, 'src');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith('generated'))
    .map((file) => readFileSync(join(dir, file), 'utf8'));
}

/** Queue names as the broker declares them in production (AMQP_NAMESPACE empty): libs/messaging's names. */
const brokerNames = createNames('');

/**
 * The broker queues (production names) a service consumes, from what declares them: its event
 * subscriptions (libs/contracts' eventSubscriptions), the RPC queues of the messages it answers (each
 * RPC definition's `service`, a lane included: `<service>.<lane>`) when its sources serve RPC, and the
 * work queues its sources pass to `consume` (as `queue: '...'` or a `..._QUEUE = '...'` constant).
 */
export function consumedQueues(service: string): string[] {
  const sources = serviceSources(service);
  const queues = new Set(
    Object.keys(eventSubscriptions)
      .filter((queue) => queue.startsWith(`${service}.`))
      .map((queue) => brokerNames.workQueue(queue)),
  );
  if (sources.some((source) => source.includes('serveRpc('))) {
    queues.add(brokerNames.rpcQueue(service));
    for (const def of Object.values(messageCatalog)) {
      if (def.kind === 'rpc' && def.service?.startsWith(`${service}.`)) queues.add(brokerNames.rpcQueue(def.service));
    }
  }
  for (const source of sources) {
    for (const match of source.matchAll(/(?:queue: |_QUEUE = )'([a-z-]+\.[a-z-]+)'/g))
      queues.add(brokerNames.workQueue(match[1]!));
  }
  return [...queues].sort();
}

/** The queues a workload consumes: its part of its service's, or all of them. */
export function workloadQueues(facts: ServiceFacts): string[] {
  const all = consumedQueues(facts.code);
  const unknown = (facts.queues ?? []).filter((queue) => !all.includes(queue));
  if (unknown.length > 0)
    throw new Error(`${facts.name} names queues ${facts.code} does not consume: ${unknown.join(', ')}`);
  return facts.queues ?? all;
}

/** The Prometheus metrics a service registers itself (`name: 'svc_...'` in its sources). */
export function registeredMetrics(service: string): string[] {
  return serviceSources(service).flatMap((source) =>
    [...source.matchAll(/name: '(svc_[a-z_]+)'/g)].map((match) => match[1]!),
  );
}

export const commonEnv = [
  'NODE_ENV',
  'LOG_LEVEL',
  'AMQP_URL',
  'AMQP_NAMESPACE',
  'DATABASE_URL',
  'SHUTDOWN_GRACE_MS',
  'RPC_TIMEOUT_MS',
];

/** Variables each service needs beyond commonEnv and PROBE_PORT. */
export const serviceEnv: Record<string, string[]> = {
  gateway: [
    'PORT',
    'REDIS_URL',
    'JWT_SECRET',
    'JWT_JWKS_URL',
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'API_KEY_PEPPER',
    'RATE_LIMIT_PER_KEY',
    'RATE_LIMIT_PER_ORG',
    'PUBLIC_BASE_URL',
    'OAUTH_SUCCESS_REDIRECT',
  ],
  dashboard: [
    'DASHBOARD_PORT',
    'DASHBOARD_PUBLIC_URL',
    'DASHBOARD_ISSUER',
    'GATEWAY_URL',
    'REDIS_URL',
    'VAULT_KEYS',
    'VAULT_ACTIVE_KEY_ID',
    'TRUST_PROXY_HOPS',
  ],
  accounts: ['VAULT_KEYS', 'VAULT_ACTIVE_KEY_ID', 'OAUTH_STATE_SECRET', 'PUBLIC_BASE_URL'],
  billing: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_ID'],
  'webhook-dispatcher': ['VAULT_KEYS', 'VAULT_ACTIVE_KEY_ID'],
};

export function requiredEnv(service: ServiceFacts): string[] {
  return [...commonEnv, 'PROBE_PORT', ...(serviceEnv[service.code] ?? []), ...Object.keys(service.env ?? {})];
}

/** Services whose network adapters get base URLs (the sandbox in development, real hosts by default). */
export const networkServices = ['accounts', 'publisher', 'analytics-sync'];
export const networkUrls: Record<string, string> = {
  GRAPH_API_URL: 'http://sandbox:4010/facebook',
  X_API_URL: 'http://sandbox:4010/x',
  LINKEDIN_API_URL: 'http://sandbox:4010/linkedin',
  TIKTOK_API_URL: 'http://sandbox:4010/tiktok',
};

/**
 * Variables that must come from a Secret: credentials by name, plus URLs that embed a password.
 * The name rule is "*SECRET*, *PEPPER*, *PASSWORD*, or a trailing _KEY/_KEYS"; RATE_LIMIT_PER_KEY is
 * the one exception (a number: requests per API key).
 */
export const secretEnv = [
  'JWT_SECRET',
  'API_KEY_PEPPER',
  'VAULT_KEYS',
  'OAUTH_STATE_SECRET',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PRICE_ID',
  'MEDIA_S3_ACCESS_KEY_ID',
  'DATABASE_URL',
  'AMQP_URL',
  'REDIS_URL',
];
const notSecretDespiteName = new Set(['RATE_LIMIT_PER_KEY']);

export function looksSecret(name: string): boolean {
  if (notSecretDespiteName.has(name)) return false;
  return secretEnv.includes(name) || /SECRET|PEPPER|PASSWORD|(^|_)KEYS?$/.test(name);
}

/** A URL with a user:password part, e.g. amqp://user:pass@host. */
export function hasCredentials(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i.test(value);
}

// Narrowing helpers for parsed YAML, which is `unknown` until checked.

export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function obj(value: unknown, what: string): Obj {
  if (!isObj(value)) throw new Error(`${what} is not a mapping`);
  return value;
}

export function list(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${what} is not a list`);
  return value;
}

export function str(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string`);
  return value;
}

export function num(value: unknown, what: string): number {
  if (typeof value !== 'number') throw new Error(`${what} is not a number`);
  return value;
}

/** Follows a dotted path through mappings: get(doc, 'spec.template.spec'). */
export function get(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (!isObj(current)) return undefined;
    current = current[key];
  }
  return current;
}
