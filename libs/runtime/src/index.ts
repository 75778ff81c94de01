export { createServiceMetrics, registerCounter, registerScrapedGauge, type ServiceMetrics } from './metrics.ts';
export { startProbeServer, type ProbeServer, type ProbeServerOptions } from './probe-server.ts';
export { exitOnSignal, runSteps, type ShutdownStep } from './shutdown.ts';
export {
  openServiceRuntime,
  type ServiceRuntime,
  type ServiceRuntimeOptions,
  type RuntimeConfig,
  type DatabaseClient,
  type DatabasePool,
} from './service-runtime.ts';
export {
  runWorkerService,
  type WorkerServiceOptions,
  type RunningWorker,
  type WorkerWiring,
} from './worker-service.ts';
export { workerMain, type WorkerMainOptions, type WorkerConfig } from './worker-main.ts';
export { startPeriodicTask, type PeriodicTask } from './periodic-task.ts';
export { startPruner, type PrunerOptions } from './pruner.ts';
