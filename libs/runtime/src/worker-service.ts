import type { Broker } from '@svc/messaging';
import { startProbeServer } from './probe-server.ts';
import {
  openServiceRuntime,
  type DatabaseClient,
  type ServiceRuntime,
  type ServiceRuntimeOptions,
} from './service-runtime.ts';

export interface WorkerWiring {
  /** RPC requests this service answers; `system.ping.v1` is always answered. */
  rpc?: Parameters<Broker['serveRpc']>[0];
  /**
   * False: this process answers no RPC, not even `system.ping.v1` (a publisher that only delivers):
   * a process on the service's RPC queue answers every request it takes, so one without the
   * service's handlers would refuse its share of them.
   */
  answersRpc?: boolean;
  /** Stops the service's own loops (schedulers, refreshers) before consumers stop. */
  stop?: () => Promise<void>;
}

export interface WorkerServiceOptions<Db extends DatabaseClient> extends ServiceRuntimeOptions<Db> {
  probePort: number;
  /** Registers consumers, starts the service's loops and names its RPC handlers. */
  wire?: (runtime: ServiceRuntime<Db>) => Promise<WorkerWiring>;
}

export interface RunningWorker<Db extends DatabaseClient> {
  runtime: ServiceRuntime<Db>;
  probePort: number;
  stop(): Promise<void>;
}

/**
 * The life of a worker service: open the runtime, start probes (not ready yet), wire consumers, then
 * report ready. Stopping reverses it: not ready, own loops, consumers (in-flight work finishes),
 * broker, database, probes.
 */
export async function runWorkerService<Db extends DatabaseClient>(
  options: WorkerServiceOptions<Db>,
): Promise<RunningWorker<Db>> {
  const runtime = await openServiceRuntime(options);
  let ready = false;
  const probes = await startProbeServer({
    port: options.probePort,
    registry: runtime.metrics.registry,
    isReady: () => ready && runtime.broker.isConnected(),
    logger: options.logger,
  });
  const wiring = (await options.wire?.(runtime)) ?? {};
  if (wiring.answersRpc !== false) await runtime.broker.serveRpc(wiring.rpc ?? { messages: [], handlers: {} });
  ready = true;
  options.logger.info({ probe_port: probes.port }, `${options.name} ready`);
  return {
    runtime,
    probePort: probes.port,
    stop: async () => {
      ready = false;
      await wiring.stop?.();
      await runtime.stop();
      await probes.close();
    },
  };
}
