import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventSubscriptions } from '@svc/contracts';
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

/** The services the deployment artefacts must run, with their probe endpoints. */
export interface ServiceFacts {
  /** The workload's name: its Deployment, its compose service. */
  name: string;
  /** The service whose code, image, broker user and database it runs: its name, unless it runs some roles of a service. */
  code: string;
  /** Values it must be given: the roles it runs (PUBLISHER_ROLES). */
  env?: Record<string, string>;
  /** The queues it consumes, when it runs some roles of its service: a part of what the service's code consumes. */
  queues?: string[];
  kind: 'api' | 'worker';
  port: number;
  liveness: string;
  readiness: string;
  /** Where Prometheus scrapes /metrics: the probe port, never the public API port. */
  metricsPort: number;
}

export const gateway: ServiceFacts = {
  name: 'gateway',
  code: 'gateway',
  kind: 'api',
  port: 8080,
  liveness: '/health',
  readiness: '/ready',
  metricsPort: 9100,
};

function worker(name: string, port: number, roles?: Pick<ServiceFacts, 'code' | 'env' | 'queues'>): ServiceFacts {
  return {
    name,
    code: name,
    kind: 'worker',
    port,
    liveness: '/livez',
    readiness: '/readyz',
    metricsPort: port,
    ...roles,
  };
}

export const workers: ServiceFacts[] = [
  worker('accounts', 9101),
  // The publisher's two roles, each a workload of its own scaled by its own queue (docs/performance.md,
  // "Accepting and delivering in processes of their own"); both consume account changes.
  worker('publisher', 9102, {
    code: 'publisher',
    env: { PUBLISHER_ROLES: 'accept' },
    queues: ['svc.publisher.accounts', 'svc.publisher.dispatch', 'svc.publisher.plans', 'svc.publisher.rpc'],
  }),
  worker('publisher-deliver', 9102, {
    code: 'publisher',
    env: { PUBLISHER_ROLES: 'deliver' },
    queues: ['svc.publisher.accounts', 'svc.publisher.work'],
  }),
  worker('scheduler', 9103),
  worker('webhook-dispatcher', 9104),
  worker('analytics-sync', 9105),
  worker('billing', 9106),
];

export const productionServices: ServiceFacts[] = [gateway, ...workers];

/** A service's own TypeScript sources (not its generated Prisma client). */
function serviceSources(service: string): string[] {
  const dir = join(repoRoot, 'services', service, 'src');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith('generated'))
    .map((file) => readFileSync(join(dir, file), 'utf8'));
}

/**
 * The broker queues (production names, `svc.` + logical name) a service consumes, read from what
 * declares them: the event subscriptions of libs/contracts, its RPC queue when it serves RPC, and the
 * queue names its sources pass to `consume` (as `queue: '...'` or a `..._QUEUE = '...'` constant).
 */
export function consumedQueues(service: string): string[] {
  const sources = serviceSources(service);
  const logical = new Set(Object.keys(eventSubscriptions).filter((queue) => queue.startsWith(`${service}.`)));
  for (const source of sources) {
    if (source.includes('serveRpc(')) logical.add(`${service}.rpc`);
    for (const match of source.matchAll(/(?:queue: |_QUEUE = )'([a-z-]+\.[a-z-]+)'/g)) logical.add(match[1]!);
  }
  return [...logical].map((queue) => `svc.${queue}`).sort();
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
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'API_KEY_PEPPER',
    'RATE_LIMIT_PER_KEY',
    'RATE_LIMIT_PER_ORG',
    'PUBLIC_BASE_URL',
    'OAUTH_SUCCESS_REDIRECT',
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
