// The system as it runs in production, for the throughput benchmarks: the built services (dist/) as
// their own processes (so their CPU and RSS are their own), an in-process sandbox for the networks,
// one unique AMQP namespace and one throwaway database per service. close() deletes every queue and
// database the run created: the broker is shared, and quorum queues outlive their processes.
import { rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { serviceQueues, TEST_DATABASE_URL, uniqueName, uniqueNamespace } from '@svc/testing';
import { SignJWT } from 'jose';
import pg from 'pg';
import { startSandbox, testProviders, type RunningSandbox } from '../../libs/providers/test/support/sandbox.ts';
import {
  freePort,
  signalServiceProcess,
  startServiceProcess,
  type ServiceProcess,
} from '../../test/support/service-process.ts';
import { harnessEnv, JWT_SECRET } from '../../test/support/system-harness.ts';

/**
 * Every service, as in production: a publish goes through the gateway, accounts and the publisher
 * (the scheduler fires it when scheduled), and its events reach the webhook-dispatcher and
 * analytics-sync, which do their share of the work on the same cores; billing idles, but its RSS is
 * measured too.
 */
export const BENCH_SERVICES = [
  'gateway',
  'accounts',
  'publisher',
  'scheduler',
  'webhook-dispatcher',
  'analytics-sync',
  'billing',
] as const;
export type BenchService = (typeof BENCH_SERVICES)[number];

export interface BenchSystem {
  /** The first gateway's base URL. */
  api: string;
  /** Every gateway's base URL (one per replica): load generators spread their requests over them. */
  apis: string[];
  /** The run's AMQP namespace (to watch what the services publish). */
  namespace: string;
  auth: string;
  /** The organization `auth` acts for (every job of the run is its). */
  orgId: string;
  sandbox: RunningSandbox;
  /** Every service process by instance name: the service's name, then `publisher-2`, ... for replicas. */
  processes: Map<string, ServiceProcess>;
  /** A pg client on one service's database (the caller ends it). */
  database(service: BenchService): Promise<pg.Client>;
  /** Connects `count` X accounts through the API and returns their ids. */
  connectXAccounts(count: number): Promise<string[]>;
  /** RSS of every service process now, in MB, by instance name. */
  rss(): Record<string, number>;
  /** CPU time (user + system) every service process has used so far, in ms (/proc/<pid>/stat), by instance name. */
  cpuMs(): Record<string, number>;
  close(): Promise<void>;
}

export interface BenchSystemOptions {
  /** Extra environment for every service (e.g. SCHEDULE_MIN_LEAD_SECONDS). */
  env?: Record<string, string>;
  /** Writes the V8 CPU profile of each service named in `profileServices` (all by default) into this directory. */
  profileDir?: string;
  profileServices?: readonly BenchService[];
  /** Processes per service (1 each by default): the scale-out benchmark runs 2 publishers and 2 gateways. */
  replicas?: Partial<Record<BenchService, number>>;
  /**
   * `together` (the default, as scripts/start runs it): one publisher process in both roles.
   * `apart`: each publisher replica is two processes, one that accepts and one that delivers at nice
   * 10 (PUBLISHER_ROLES; docs/performance.md, "Accepting and delivering in processes of their own").
   * BENCH_PUBLISHER_ROLES sets it for a whole run.
   */
  publisherRoles?: PublisherRoles;
}

export type PublisherRoles = 'apart' | 'together';

/** The nice value of a publisher process that only delivers, on one machine with the accepting one. */
const DELIVERER_NICE = 10;

/** BENCH_PUBLISHER_ROLES (`together` unless it says `apart`). */
export function publisherRolesFromEnv(): PublisherRoles {
  const roles = process.env.BENCH_PUBLISHER_ROLES ?? 'together';
  if (roles !== 'apart' && roles !== 'together')
    throw new Error(`BENCH_PUBLISHER_ROLES is "${roles}": apart or together`);
  return roles;
}

/** `publisher`, then `publisher-2`, `publisher-3`, ...; a publisher's delivering process `publisher-deliver`, `publisher-deliver-2`, ... */
function instanceName(base: string, replica: number): string {
  return replica === 1 ? base : `${base}-${replica}`;
}

/** Adds up a per-instance record by service (a service's replicas together). */
export function byService(perInstance: Record<string, number>): Record<BenchService, number> {
  const totals = Object.fromEntries(BENCH_SERVICES.map((name) => [name, 0])) as Record<BenchService, number>;
  for (const [instance, value] of Object.entries(perInstance)) {
    const service = BENCH_SERVICES.find((name) => instance === name || instance.startsWith(`${name}-`));
    if (service !== undefined) totals[service] += value;
  }
  return totals;
}

/**
 * `BENCH_SERVICE_ENV="DELIVERY_CONCURRENCY=1,DB_POOL_MAX=20"`: extra environment for every service, to
 * measure one setting against the defaults without editing a benchmark.
 */
export function serviceEnvFromEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_SERVICE_ENV ?? '')
    .split(',')
    .map((pair) => pair.trim())
    .filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`BENCH_SERVICE_ENV: "${pair}" is not NAME=value`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/**
 * The services' environment for a benchmark whose jobs all belong to one organization: its limit
 * (DELIVERY_ORG_CONCURRENCY, 5 by default) raised to 40 unless BENCH_SERVICE_ENV sets it, since a
 * platform's many organizations are not capped together (docs/performance.md, "One organization's limit").
 */
export function oneOrganizationEnv(): Record<string, string> {
  return { DELIVERY_ORG_CONCURRENCY: '40', ...serviceEnvFromEnv() };
}

/** An environment as recorded in a result's params: `NAME=value,...`. */
export function envParam(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => `${name}=${value}`)
    .join(',');
}

/** `BENCH_PROFILE=<dir>` and `BENCH_PROFILE_SERVICES=gateway,publisher` (every service when unset), as options. */
export function profileOptionsFromEnv(): Pick<BenchSystemOptions, 'profileDir' | 'profileServices'> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return {};
  const names = (process.env.BENCH_PROFILE_SERVICES ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(BENCH_SERVICES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_PROFILE_SERVICES names no bench service: ${unknown.join(', ')}`);
  return { profileDir: dir, ...(names.length === 0 ? {} : { profileServices: names as BenchService[] }) };
}

export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS_PER_S = 100;

/** CPU time a process has used, in ms: utime + stime of /proc/<pid>/stat (clock ticks of 10 ms on Linux). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return 0;
  }
}

export async function startBenchSystem(options: BenchSystemOptions = {}): Promise<BenchSystem> {
  const namespace = uniqueNamespace('bench');
  const runId = uniqueName('bench').replace(/-/g, '_');
  const mediaDir = path.join(os.tmpdir(), runId);
  const databaseOf = (service: BenchService) => `${runId}_${service.replace(/-/g, '_')}`;
  // The sandbox records every post in memory; Instagram's quota is the only one it enforces.
  const sandbox = await startSandbox({ igQuotaTotal: 1_000_000 });
  const replicas = (service: BenchService) => options.replicas?.[service] ?? 1;
  // The first gateway's address goes into the services' environment (media URLs), so it is chosen
  // before they start. The other replicas take a port of the kernel's choice and say which when
  // ready: a port chosen ahead for them was once taken meanwhile by a service's probe server.
  const api = `http://127.0.0.1:${await freePort()}`;
  const apis = [api];
  const env = harnessEnv(
    namespace,
    sandbox.baseUrl,
    { dir: mediaDir, publicBaseUrl: api },
    {
      LOG_LEVEL: 'info',
      // Limits out of the way: the benchmarks measure throughput, not the limits.
      RATE_LIMIT_PER_KEY: '100000000',
      RATE_LIMIT_PER_ORG: '100000000',
      RATE_LIMIT_PER_ADDRESS: '100000000',
      PLAN_FREE_POSTS_PER_MONTH: '100000000',
      PLAN_FREE_CONNECTED_ACCOUNTS: '100000',
      RPC_TIMEOUT_MS: '30000',
      ...options.env,
    },
  );
  // The test harness shrinks the database pools so two test systems fit at once; a benchmark
  // measures each service with its own defaults (the publisher's 16 + 24 for deliveries, the others' 10).
  if (options.env?.DB_POOL_MAX === undefined) delete env.DB_POOL_MAX;
  if (options.env?.WEBHOOK_DB_POOL_SIZE === undefined) delete env.WEBHOOK_DB_POOL_SIZE;
  if (options.env?.DELIVERY_DB_POOL_SIZE === undefined) delete env.DELIVERY_DB_POOL_SIZE;
  const processes = new Map<string, ServiceProcess>();
  const perInstance = (read: (pid: number) => number) =>
    Object.fromEntries([...processes].map(([name, service]) => [name, read(service.child.pid ?? 0)]));
  const system: BenchSystem = {
    api,
    apis,
    namespace,
    orgId: `org_${runId}`,
    auth: `Bearer ${await new SignJWT({ sub: 'user_1', org_id: `org_${runId}` }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('2h').sign(new TextEncoder().encode(JWT_SECRET))}`,
    sandbox,
    processes,
    database: async (service) => {
      const client = new pg.Client(connectionConfig(TEST_DATABASE_URL, databaseOf(service)));
      await client.connect();
      return client;
    },
    connectXAccounts: async (count) => {
      const x = testProviders(sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 10_000 }).x;
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) {
        const token = `${runId}-x-${i}`;
        const profile = await x.profile.fetch({ accessToken: token });
        const res = await fetch(`${api}/v1/accounts`, {
          method: 'POST',
          headers: { authorization: system.auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            provider: 'x',
            platform_account_id: profile.platformAccountId,
            credentials: { access_token: token },
          }),
        });
        if (res.status !== 201)
          throw new Error(`connecting X account ${i} answered ${res.status}: ${await res.text()}`);
        ids.push(((await res.json()) as { id: string }).id);
      }
      return ids;
    },
    rss: () => perInstance(rssMb),
    cpuMs: () => perInstance(cpuMs),
    close: async () => {
      // SIGTERM, not SIGKILL: a graceful exit is when node writes the --cpu-prof profile.
      await Promise.all([...processes.values()].map((service) => signalServiceProcess(service, 'SIGTERM')));
      const broker = await Broker.connect({
        url: env.AMQP_URL!,
        namespace,
        service: 'bench',
        logger: createLogger({ service: 'bench', level: 'silent' }),
      });
      await broker.deleteTopology({ queues: serviceQueues(BENCH_SERVICES) });
      await broker.close();
      await Promise.all(
        BENCH_SERVICES.map((name) => dropDatabase(connectionConfig(TEST_DATABASE_URL, databaseOf(name)))),
      );
      await sandbox.close();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
  const apart = (options.publisherRoles ?? publisherRolesFromEnv()) === 'apart';
  const start = async (name: BenchService, replica = 1, delivering = false) => {
    const instance = instanceName(delivering ? 'publisher-deliver' : name, replica);
    // Named after the instance (node's default name says only the date and pid).
    const dir =
      options.profileDir !== undefined && (options.profileServices ?? BENCH_SERVICES).includes(name)
        ? options.profileDir
        : undefined;
    const nodeArgs =
      dir === undefined
        ? []
        : ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${instance}.${Date.now()}.cpuprofile`];
    const port: Record<string, string> = name === 'gateway' ? { PORT: replica === 1 ? new URL(api).port : '0' } : {};
    const roles: Record<string, string> =
      name === 'publisher' && apart ? { PUBLISHER_ROLES: delivering ? 'deliver' : 'accept' } : {};
    const started = await startServiceProcess(
      name,
      { ...env, ...port, ...roles, DATABASE_NAME: databaseOf(name) },
      nodeArgs,
    );
    if (delivering) os.setPriority(started.child.pid!, DELIVERER_NICE);
    processes.set(instance, started);
    if (name === 'gateway' && replica > 1) apis[replica - 1] = `http://127.0.0.1:${started.port}`;
  };
  // allSettled: when one fails, the others are in `processes` before close() stops them.
  const startAll = async (starts: Promise<void>[]) => {
    const failed = (await Promise.allSettled(starts)).find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  };
  try {
    // The gateway first: it declares the exchanges the others bind to (as in the fault suite).
    await start('gateway');
    await startAll(BENCH_SERVICES.filter((name) => name !== 'gateway').map((name) => start(name)));
    // Replicas once the first of each has migrated its database, as a rollout adds pods; so are the
    // publisher's delivering processes.
    await startAll([
      ...BENCH_SERVICES.flatMap((name) => Array.from({ length: replicas(name) - 1 }, (_, k) => start(name, k + 2))),
      ...(apart ? Array.from({ length: replicas('publisher') }, (_, k) => start('publisher', k + 1, true)) : []),
    ]);
  } catch (error) {
    await system.close().catch(() => undefined);
    throw error;
  }
  return system;
}
