import path from 'node:path';
import { connectionConfig, dropDatabase } from '@svc/db';
import { createLogger } from '@svc/logger';
import { runWorkerService, type RunningWorker } from '@svc/runtime';
import { TEST_DATABASE_URL, uniqueName } from '@svc/testing';
import { loadServiceConfig } from '../../services/publisher/src/config.ts';
import { PrismaClient } from '../../services/publisher/src/generated/prisma/client.ts';
import { wire } from '../../services/publisher/src/wiring.ts';
import type { SystemHarness } from '../support/system-harness.ts';

export interface HookedPublisher {
  worker: RunningWorker<PrismaClient>;
  /** Deletes its queues (this namespace's, on the shared broker), stops it and drops its database. */
  stop(): Promise<void>;
}

/**
 * A publisher of the test's own next to a system started without one, wired with the crash-window
 * hook (after the network accepted a post, before it is recorded): what the crash and cancel tests
 * break or hold a delivery with.
 */
export async function startHookedPublisher(
  system: SystemHarness,
  options: { name: string; env?: Record<string, string>; afterNetworkCall: (deliveryId: string) => Promise<void> },
): Promise<HookedPublisher> {
  const database = uniqueName(options.name);
  const config = loadServiceConfig({ ...system.env, DATABASE_NAME: database, PROBE_PORT: '0', ...options.env });
  const worker = await runWorkerService({
    name: 'publisher',
    serviceDir: path.resolve(__dirname, '../../services/publisher'),
    config,
    logger: createLogger({ service: 'publisher', level: config.LOG_LEVEL }),
    probePort: 0,
    createClient: (adapter) => new PrismaClient({ adapter }),
    wire: (runtime) => wire(runtime, config, { afterNetworkCall: options.afterNetworkCall }),
  });
  return {
    worker,
    stop: async () => {
      await worker.runtime.broker.deleteTopology().catch(() => undefined);
      await worker.stop();
      await dropDatabase(connectionConfig(TEST_DATABASE_URL, database));
    },
  };
}
