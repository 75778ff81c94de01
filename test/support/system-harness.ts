// The whole system in one test process: the sandbox, the gateway and the chosen worker services, each
// with its own throwaway database, all meeting on one unique AMQP namespace. Tests drive the gateway
// with supertest, exactly as API users would.
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { connectionConfig, dropDatabase, openPgDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { storageFromConfig, type MediaStorage } from '@svc/media';
import {
  openServiceRuntime,
  runWorkerService,
  type DatabaseClient,
  type RunningWorker,
  type ServiceRuntime,
  type WorkerWiring,
} from '@svc/runtime';
import {
  ensureServiceDatabase,
  serviceQueues,
  TEST_AMQP_URL,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  uniqueName,
  uniqueNamespace,
} from '@svc/testing';
import { SignJWT } from 'jose';
import request from 'supertest';
import { sandboxConfig, startSandbox, type RunningSandbox } from '../../libs/providers/test/support/sandbox.ts';
import { startMediaServer, type MediaServer } from '../../libs/providers/test/support/media-server.ts';
import { loadServiceConfig as loadAccountsConfig } from '../../services/accounts/src/config.ts';
import { loadServiceConfig as loadBillingConfig } from '../../services/billing/src/config.ts';
import { PrismaClient as BillingClient } from '../../services/billing/src/generated/prisma/client.ts';
import { wire as wireBilling } from '../../services/billing/src/wiring.ts';
import { PrismaClient as AccountsClient } from '../../services/accounts/src/generated/prisma/client.ts';
import { wire as wireAccounts } from '../../services/accounts/src/wiring.ts';
import { composeGateway } from '../../services/gateway/src/compose.ts';
import { connectedRedisClient } from '../../services/gateway/src/rate-limit/redis-client.ts';
import { loadServiceConfig as loadPublisherConfig } from '../../services/publisher/src/config.ts';
import { PrismaClient as PublisherClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { wire as wirePublisher } from '../../services/publisher/src/wiring.ts';
import { loadServiceConfig as loadSchedulerConfig } from '../../services/scheduler/src/config.ts';
import { PrismaClient as SchedulerClient } from '../../services/scheduler/src/generated/prisma/client.ts';
import { wire as wireScheduler } from '../../services/scheduler/src/wiring.ts';
import { loadServiceConfig as loadAnalyticsConfig } from '../../services/analytics-sync/src/config.ts';
import { PrismaClient as AnalyticsClient } from '../../services/analytics-sync/src/generated/prisma/client.ts';
import { wire as wireAnalytics } from '../../services/analytics-sync/src/wiring.ts';
import { loadServiceConfig as loadWebhookDispatcherConfig } from '../../services/webhook-dispatcher/src/config.ts';
import { wire as wireWebhookDispatcher } from '../../services/webhook-dispatcher/src/wiring.ts';
import { loadGatewayConfig } from '../../services/gateway/src/config.ts';

const root = path.resolve(__dirname, '../..');
export const JWT_SECRET = 'system-harness-jwt-secret-32-characters!';

interface ServiceModule {
  load: (env: Record<string, string | undefined>) => object & { PROBE_PORT: number; SHUTDOWN_GRACE_MS: number };
  /** Its Prisma client, or (`openClient`) the client of a service that runs without one. */
  createClient?: (adapter: never) => DatabaseClient;
  openClient?: (connection: never, pool: never) => DatabaseClient;
  wire: (runtime: ServiceRuntime<never>, config: never) => Promise<WorkerWiring>;
}

/**
 * Worker services the harness can start. A service joins by adding its entry: its config loader,
 * Prisma client (or `openClient`, as in its main.ts) and `wire(runtime, config)` from its `src/wiring.ts`.
 */
export const SERVICES = {
  accounts: {
    load: loadAccountsConfig,
    createClient: (adapter: never) => new AccountsClient({ adapter }),
    wire: wireAccounts as unknown as ServiceModule['wire'],
  },
  publisher: {
    load: loadPublisherConfig,
    createClient: (adapter: never) => new PublisherClient({ adapter }),
    wire: wirePublisher as unknown as ServiceModule['wire'],
  },
  scheduler: {
    load: loadSchedulerConfig,
    createClient: (adapter: never) => new SchedulerClient({ adapter }),
    wire: wireScheduler as unknown as ServiceModule['wire'],
  },
  'analytics-sync': {
    load: loadAnalyticsConfig,
    createClient: (adapter: never) => new AnalyticsClient({ adapter }),
    wire: wireAnalytics as unknown as ServiceModule['wire'],
  },
  billing: {
    load: loadBillingConfig,
    createClient: (adapter: never) => new BillingClient({ adapter }),
    wire: wireBilling as unknown as ServiceModule['wire'],
  },
  'webhook-dispatcher': {
    load: loadWebhookDispatcherConfig,
    openClient: openPgDatabase,
    wire: wireWebhookDispatcher as unknown as ServiceModule['wire'],
  },
} satisfies Record<string, { load: unknown; wire: unknown } & ({ createClient: unknown } | { openClient: unknown })>;

export type ServiceName = keyof typeof SERVICES;

export interface SystemHarness {
  gateway: ReturnType<typeof composeGateway>;
  sandbox: RunningSandbox;
  media: MediaServer;
  namespace: string;
  env: Record<string, string>;
  workers: Partial<Record<ServiceName, RunningWorker<DatabaseClient>>>;
  /** A dashboard JWT for the organization (a fresh one by default). */
  token(orgId?: string): Promise<string>;
  /** An API key of the organization, created through the API. */
  apiKey(orgId: string): Promise<string>;
  close(): Promise<void>;
}

export function harnessEnv(
  namespace: string,
  sandboxUrl: string,
  media: { dir: string; publicBaseUrl: string },
  overrides: Record<string, string>,
): Record<string, string> {
  const providerEnv = Object.fromEntries(
    Object.entries(sandboxConfig(sandboxUrl, { PROVIDER_TIMEOUT_MS: 2000 })).map(([key, value]) => [
      key,
      String(value),
    ]),
  );
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.HARNESS_LOG_LEVEL ?? 'silent',
    AMQP_URL: TEST_AMQP_URL,
    AMQP_NAMESPACE: namespace,
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    RPC_TIMEOUT_MS: '10000',
    SHUTDOWN_GRACE_MS: '6000',
    PUBLIC_BASE_URL: 'http://api.test.local',
    JWT_SECRET,
    API_KEY_PEPPER: 'system-harness-pepper-of-32-characters!!',
    VAULT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
    OAUTH_STATE_SECRET: 'system-harness-oauth-state-secret-32chars',
    ALLOW_PRIVATE_URLS: 'true',
    // One media store per run, shared by the gateway (uploads, public URLs) and the publisher (delivery).
    MEDIA_LOCAL_DIR: path.join(media.dir, 'store'),
    MEDIA_TMP_DIR: path.join(media.dir, 'tmp'),
    MEDIA_PUBLIC_BASE_URL: media.publicBaseUrl,
    INSTAGRAM_CLIENT_ID: 'ig-client',
    INSTAGRAM_CLIENT_SECRET: 'ig-secret',
    FACEBOOK_CLIENT_ID: 'fb-client',
    FACEBOOK_CLIENT_SECRET: 'fb-secret',
    X_CLIENT_ID: 'x-client',
    X_CLIENT_SECRET: 'x-secret',
    LINKEDIN_CLIENT_ID: 'li-client',
    LINKEDIN_CLIENT_SECRET: 'li-secret',
    TIKTOK_CLIENT_KEY: 'tt-client',
    TIKTOK_CLIENT_SECRET: 'tt-secret',
    ...providerEnv,
    // Tests poll every few ms: the publisher's hand-off budget in polls is raised to match.
    PROVIDER_HANDOFF_POLL_MAX_ATTEMPTS: '20',
    // Two test files run at once, each with a whole system: small pools keep them under
    // PostgreSQL's 100 connections (the publisher's own defaults are sized for production).
    DB_POOL_MAX: '8',
    DELIVERY_DB_POOL_SIZE: '8',
    WEBHOOK_DB_POOL_SIZE: '8',
    // Like a deployment that verified its media domain with TikTok (PULL_FROM_URL from there).
    TIKTOK_VERIFIED_URL_PREFIXES: media.publicBaseUrl,
    // MCP tool calls go back into the gateway over HTTP: its real port.
    MCP_API_BASE_URL: media.publicBaseUrl,
    ...overrides,
  };
}

export interface SystemOptions {
  services: ServiceName[];
  env?: Record<string, string>;
  /** Wraps the gateway's media storage, e.g. to count what it stores. */
  wrapMediaStorage?: (storage: MediaStorage) => MediaStorage;
  /** Collects every log line of every service (level debug) here, e.g. to prove no secret is logged. */
  logLines?: string[];
  /**
   * Turns the sandbox's Stripe on, delivering its webhooks to this system's gateway
   * (`/v1/billing/webhook`), and points billing at it as development does: `STRIPE_API_URL`,
   * a test key, the webhook secret and the sandbox's price (`env` may still override them).
   */
  sandboxStripe?: boolean;
  /**
   * The gateway's PUBLIC_BASE_URL is its real address, as under scripts/start, instead of
   * `http://api.test.local`: the links and redirects it makes (OAuth redirect URIs and hand-off
   * links) then work in a real browser. `env` may still override it.
   */
  publicBaseUrlIsGateway?: boolean;
}

function loggerFor(service: string, level: string, lines: string[] | undefined) {
  if (lines === undefined) return createLogger({ service, level });
  return createLogger({
    service,
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  });
}

/**
 * One step of the teardown, named on stderr every 30 s while it runs: a teardown that passes its
 * hook's timeout (once in CI, 2026-11-27, test/webhooks/delivery.int.test.ts) then says where it stalled.
 */
async function watchedStep<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const watch = setInterval(
    () => console.warn(`system.close: ${name} still running after ${Math.round((Date.now() - started) / 1000)} s`),
    30_000,
  );
  watch.unref();
  try {
    return await work();
  } finally {
    clearInterval(watch);
  }
}

export async function startSystem(options: SystemOptions): Promise<SystemHarness> {
  const namespace = uniqueNamespace('e2e');
  const runId = uniqueName('e2e');
  // The gateway also listens on a real port, so networks (the sandbox) can fetch media public URLs and
  // the sandbox's Stripe can deliver webhooks.
  const publicServer = createServer();
  await new Promise<void>((resolve) => publicServer.listen(0, '127.0.0.1', resolve));
  const publicBaseUrl = `http://127.0.0.1:${(publicServer.address() as AddressInfo).port}`;
  const stripeSecret = `whsec_${uniqueName('harness').replace(/[^A-Za-z0-9]/g, '')}`;
  const sandbox = await startSandbox(
    options.sandboxStripe === true
      ? {
          stripe: {
            webhookUrl: `${publicBaseUrl}/v1/billing/webhook`,
            webhookSecret: stripeSecret,
            retryDelaysMs: [200, 1000],
          },
        }
      : {},
  );
  const media = await startMediaServer();
  const mediaDir = path.join(os.tmpdir(), runId);
  const stripeEnv: Record<string, string> =
    options.sandboxStripe === true
      ? {
          STRIPE_API_URL: sandbox.baseUrl,
          STRIPE_SECRET_KEY: 'sk_test_harness',
          STRIPE_WEBHOOK_SECRET: stripeSecret,
          STRIPE_PRICE_ID: 'price_sandbox_pro',
        }
      : {};
  const env = harnessEnv(
    namespace,
    sandbox.baseUrl,
    { dir: mediaDir, publicBaseUrl },
    {
      ...stripeEnv,
      ...(options.publicBaseUrlIsGateway === true ? { PUBLIC_BASE_URL: publicBaseUrl } : {}),
      ...options.env,
    },
  );
  const databases: string[] = [];
  const dbEnv = async (service: string) => {
    const name = `${runId}_${service.replace(/-/g, '_')}`;
    databases.push(name);
    await ensureServiceDatabase(service, name);
    return { ...env, DATABASE_NAME: name, PROBE_PORT: '0' };
  };

  const workers: Partial<Record<ServiceName, RunningWorker<DatabaseClient>>> = {};
  await Promise.all(
    options.services.map(async (name) => {
      const module = SERVICES[name] as unknown as ServiceModule;
      const config = module.load(await dbEnv(name)) as Parameters<typeof runWorkerService>[0]['config'] & {
        PROBE_PORT: number;
        LOG_LEVEL: string;
      };
      const logger = loggerFor(name, config.LOG_LEVEL, options.logLines);
      workers[name] = await runWorkerService({
        name,
        serviceDir: path.join(root, 'services', name),
        config,
        logger,
        probePort: 0,
        ...(module.openClient === undefined
          ? { createClient: module.createClient as never }
          : { openClient: module.openClient as never }),
        wire: (runtime) => module.wire(runtime as never, config as never),
      });
    }),
  );

  const gatewayConfig = loadGatewayConfig(await dbEnv('gateway'));
  const gatewayLogger = loggerFor('gateway', gatewayConfig.LOG_LEVEL, options.logLines);
  const gatewayRuntime = await openServiceRuntime({
    name: 'gateway',
    serviceDir: path.join(root, 'services', 'gateway'),
    config: gatewayConfig,
    logger: gatewayLogger,
    openClient: openPgDatabase,
  });
  const redis = await connectedRedisClient(TEST_REDIS_URL);
  const mediaStorage = options.wrapMediaStorage?.(storageFromConfig(gatewayConfig));
  const gateway = composeGateway({
    config: gatewayConfig,
    runtime: gatewayRuntime,
    redis,
    logger: gatewayLogger,
    isDraining: () => false,
    rateLimitPrefix: uniqueName('rl'),
    ...(mediaStorage === undefined ? {} : { mediaStorage }),
  });
  publicServer.on('request', gateway);

  const token = (orgId = uniqueName('org')) =>
    new SignJWT({ sub: 'user_1', org_id: orgId })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('15m')
      .sign(new TextEncoder().encode(JWT_SECRET));

  return {
    gateway,
    sandbox,
    media,
    namespace,
    env,
    workers,
    token,
    apiKey: async (orgId) => {
      const res = await request(gateway)
        .post('/v1/api-keys')
        .set('Authorization', `Bearer ${await token(orgId)}`)
        .send({ name: 'harness' });
      if (res.status !== 201) throw new Error(`could not create an API key: ${res.status} ${JSON.stringify(res.body)}`);
      return (res.body as { key: string }).key;
    },
    close: async () => {
      // Quorum queues outlive their processes: every queue of this namespace is deleted, or runs pile
      // them up in the shared broker (thousands of leftover Raft clusters stall RabbitMQ).
      const running = Object.entries(workers);
      await Promise.all(
        running
          .filter(([, worker]) => worker.runtime.broker.isConnected())
          .map(([name, worker]) =>
            watchedStep(`${name}: delete its topology`, () =>
              worker.runtime.broker.deleteTopology().catch(() => undefined),
            ),
          ),
      );
      await Promise.all(running.map(([name, worker]) => watchedStep(`${name}: stop`, () => worker.stop())));
      await watchedStep("gateway: delete the services' queues", () =>
        gatewayRuntime.broker.deleteTopology({ queues: serviceQueues([...Object.keys(SERVICES), 'gateway']) }),
      );
      publicServer.closeAllConnections();
      await watchedStep(
        'gateway: close the HTTP server',
        () => new Promise<void>((resolve) => publicServer.close(() => resolve())),
      );
      await watchedStep('gateway: stop', () => gatewayRuntime.stop());
      redis.disconnect();
      await watchedStep('sandbox: close', () => sandbox.close());
      await watchedStep('media server: close', () => media.close());
      await watchedStep('drop the databases', () =>
        Promise.all(databases.map((name) => dropDatabase(connectionConfig(TEST_DATABASE_URL, name)))),
      );
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}
