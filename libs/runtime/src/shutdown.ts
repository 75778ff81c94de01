import type { Logger } from '@svc/logger';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/**
 * Runs the steps in order on SIGTERM or SIGINT (each step's failure is logged and the next still
 * runs), then exits 0. If the whole sequence outlives the grace period the process exits 1, so an
 * orchestrator never waits on a hung shutdown. A second signal forces the exit at once.
 */
export function exitOnSignal(options: { logger: Logger; graceMs: number; steps: () => ShutdownStep[] }): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    options.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      options.logger.error({ grace_ms: options.graceMs }, 'shutdown exceeded the grace period; exiting');
      process.exit(1);
    }, options.graceMs);
    timer.unref();
    void runSteps(options.logger, options.steps()).then(() => {
      options.logger.info('stopped');
      process.exit(0);
    });
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

export async function runSteps(logger: Logger, steps: ShutdownStep[]): Promise<void> {
  for (const step of steps) {
    try {
      await step.run();
    } catch (error) {
      logger.error({ err: error, step: step.name }, 'shutdown step failed');
    }
  }
}
