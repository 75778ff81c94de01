import { exitOnConfigError } from '@svc/config';
import { createLogger } from '@svc/logger';
import { exitOnSignal } from './shutdown.ts';
import type { DatabaseClient, RuntimeConfig, ServiceRuntime } from './service-runtime.ts';
import { runWorkerService, type WorkerServiceOptions, type WorkerWiring } from './worker-service.ts';

export interface WorkerConfig extends RuntimeConfig {
  LOG_LEVEL: string;
  PROBE_PORT: number;
}

export interface WorkerMainOptions<Config extends WorkerConfig, Db extends DatabaseClient> extends Pick<
  WorkerServiceOptions<Db>,
  'name' | 'serviceDir' | 'createClient' | 'openClient' | 'prefetch'
> {
  loadConfig: () => Config;
  wire?: (runtime: ServiceRuntime<Db>, config: Config) => Promise<WorkerWiring>;
}

/**
 * The whole entry point of a worker service: config (a bad value exits 1 with every problem listed),
 * logger, runtime and wiring, then graceful shutdown on SIGTERM/SIGINT. A failure while starting is
 * logged and exits 1, so a supervisor restarts the process.
 */
export function workerMain<Config extends WorkerConfig, Db extends DatabaseClient>(
  options: WorkerMainOptions<Config, Db>,
): void {
  const config = exitOnConfigError(options.name, options.loadConfig);
  const logger = createLogger({ service: options.name, level: config.LOG_LEVEL });
  runWorkerService({
    name: options.name,
    serviceDir: options.serviceDir,
    config,
    logger,
    probePort: config.PROBE_PORT,
    ...(options.createClient === undefined ? {} : { createClient: options.createClient }),
    ...(options.openClient === undefined ? {} : { openClient: options.openClient }),
    ...(options.prefetch === undefined ? {} : { prefetch: options.prefetch }),
    ...(options.wire === undefined ? {} : { wire: (runtime: ServiceRuntime<Db>) => options.wire!(runtime, config) }),
  }).then(
    (worker) =>
      exitOnSignal({
        logger,
        graceMs: config.SHUTDOWN_GRACE_MS,
        steps: () => [{ name: options.name, run: worker.stop }],
      }),
    (error: unknown) => {
      logger.fatal({ err: error }, `${options.name} failed to start`);
      process.exit(1);
    },
  );
}
