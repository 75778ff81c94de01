// The gateway: authentication, validation and rate limits at the edge; everything else is RPC and
// commands to the services that own the data.
import './instrument.ts';
import path from 'node:path';
import { closeServerStep } from '@svc/http-server';
import { exitOnConfigError } from '@svc/config';
import { openPgDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { assertFfprobeInstalled } from '@svc/media';
import { exitOnSignal, openServiceRuntime, startProbeServer } from '@svc/runtime';
import { composeGateway } from './compose.ts';
import { createRedisClient } from './rate-limit/redis-client.ts';
import { loadGatewayConfig } from './config.ts';
import { IdempotencyPruner } from './idempotency/idempotency-pruner.ts';

async function main(): Promise<void> {
  const config = exitOnConfigError('gateway', () => loadGatewayConfig());
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  // Uploads and media verification measure videos with ffprobe.
  await assertFfprobeInstalled();
  const runtime = await openServiceRuntime({
    name: 'gateway',
    serviceDir: path.resolve(__dirname, '..'),
    config,
    logger,
    // No Prisma client in this process, a plain pg pool: Prisma's query compiler would cost ~20 MB of
    // RSS from the first query (docs/performance.md, "The gateway's young generation, without
    // Prisma's client").
    openClient: openPgDatabase,
  });
  await runtime.broker.serveRpc({ messages: [], handlers: {} });
  const redis = createRedisClient(config.REDIS_URL);
  redis.on('error', (error) => logger.warn({ err: error }, 'redis unavailable; rate limits count per replica'));

  let draining = false;
  const isReady = () => !draining && runtime.broker.isConnected();
  const probes = await startProbeServer({
    port: config.PROBE_PORT,
    registry: runtime.metrics.registry,
    isReady,
    logger,
  });
  const app = composeGateway({ config, runtime, redis, logger, isDraining: () => draining });
  const pruner = new IdempotencyPruner({ db: runtime.db, logger });
  pruner.start();
  const server = app.listen(config.PORT, config.HOST, () => {
    const address = server.address();
    logger.info(
      { port: typeof address === 'object' && address !== null ? address.port : config.PORT, probe_port: probes.port },
      'gateway ready',
    );
  });
  exitOnSignal({
    logger,
    graceMs: config.SHUTDOWN_GRACE_MS,
    steps: () => [
      { name: 'readiness', run: () => Promise.resolve(void (draining = true)) },
      closeServerStep(server),
      { name: 'idempotency pruner', run: () => pruner.stop() },
      { name: 'runtime', run: runtime.stop },
      { name: 'redis', run: async () => void (await redis.quit().catch(() => undefined)) },
      { name: 'probes', run: probes.close },
    ],
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
