// The dashboard service: users, sessions, organizations and invites, the signing keys of dashboard
// JWTs (published at /.well-known/jwks.json), and /api/* forwarded to the gateway with such a JWT.
import './instrument.ts';
import path from 'node:path';
import { closeServerStep } from '@svc/http-server';
import { exitOnConfigError } from '@svc/config';
import { createLogger } from '@svc/logger';
import { exitOnSignal, openServiceRuntime, startPeriodicTask, startProbeServer } from '@svc/runtime';
import { Redis } from 'ioredis';
import { composeDashboard } from './compose.ts';
import { loadServiceConfig } from './config.ts';
import { seedDemo } from './domain/seed-demo.ts';
import { PrismaClient } from './generated/prisma/client.ts';

/** How often signing keys are checked for rotation and expired sessions deleted. */
const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

async function main(): Promise<void> {
  const config = exitOnConfigError('dashboard', () => loadServiceConfig());
  const logger = createLogger({ service: 'dashboard', level: config.LOG_LEVEL });
  // The runtime also connects to RabbitMQ (every service's runtime does); the dashboard declares no
  // queue and sends no message.
  const runtime = await openServiceRuntime({
    name: 'dashboard',
    serviceDir: path.resolve(__dirname, '..'),
    config,
    logger,
    createClient: (adapter) => new PrismaClient({ adapter }),
  });
  // No offline queue: while Redis is away a command fails at once and throttling counts per replica.
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', (error) => logger.warn({ err: error }, 'redis unavailable; sign-in throttling counts per replica'));

  let draining = false;
  const isReady = () => !draining;
  const probes = await startProbeServer({
    port: config.PROBE_PORT,
    registry: runtime.metrics.registry,
    isReady,
    logger,
  });
  const { app, keys, identity } = composeDashboard({ config, db: runtime.db, redis, logger, isReady });
  await keys.rotateIfDue();
  if (config.NODE_ENV === 'development') {
    const demo = await seedDemo(identity, config.DEMO_PASSWORD);
    if (demo !== null)
      process.stdout.write(
        `dashboard demo user created: ${demo.email} / ${demo.password} (organization ${demo.orgId})\n`,
      );
  }
  const maintenance = startPeriodicTask({
    intervalMs: MAINTENANCE_INTERVAL_MS,
    firstRunAfterInterval: true,
    run: async () => {
      await keys.rotateIfDue();
      await identity.sessions.deleteExpired(new Date());
    },
    onError: (error) => logger.error({ err: error }, 'dashboard maintenance failed'),
  });
  const server = app.listen(config.DASHBOARD_PORT, config.DASHBOARD_HOST, () => {
    const address = server.address();
    logger.info(
      {
        port: typeof address === 'object' && address !== null ? address.port : config.DASHBOARD_PORT,
        probe_port: probes.port,
      },
      'dashboard ready',
    );
  });
  exitOnSignal({
    logger,
    graceMs: config.SHUTDOWN_GRACE_MS,
    steps: () => [
      { name: 'readiness', run: () => Promise.resolve(void (draining = true)) },
      closeServerStep(server),
      { name: 'maintenance', run: () => maintenance.stop() },
      { name: 'runtime', run: runtime.stop },
      { name: 'redis', run: async () => void (await redis.quit().catch(() => undefined)) },
      { name: 'probes', run: probes.close },
    ],
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `dashboard failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
