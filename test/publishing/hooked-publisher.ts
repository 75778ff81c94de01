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
 * A publisher process of the test's own, on `database` (created if missing), next to a system started
 * without one or in place of its stopped one; `afterNetworkCall` is the wiring's crash-window hook.
 */
export function startTestPublisher(
  system: SystemHarness,
  options: { database: string; env?: Record<string, string>; afterNetworkCall?: (deliveryId: string) => Promise<void> },
): Promise<RunningWorker<PrismaClient>> {
  const config = loadServiceConfig({ ...system.env, DATABASE_NAME: options.database, PROBE_PORT: '0', ...options.env });
  return runWorkerService({
    name: 'publisher',
    serviceDir: path.resolve(__dirname, '../../services/publisher'),
    config,
    logger: createLogger({ service: 'publisher', level: config.LOG_LEVEL }),
    probePort: 0,
    createClient: (adapter) => new PrismaClient({ adapter }),
    wire: (runtime) =>
      wire(
        runtime,
        config,
        options.afterNetworkCall === undefined ? {} : { afterNetworkCall: options.afterNetworkCall },
      ),
  });
}

/**
 * A test publisher with the crash-window hook (after the network accepted a post, before it is
 * recorded) on a database of its own: what the crash and cancel tests break or hold a delivery with.
 */
export async function startHookedPublisher(
  system: SystemHarness,
  options: { name: string; env?: Record<string, string>; afterNetworkCall: (deliveryId: string) => Promise<void> },
): Promise<HookedPublisher> {
  const database = uniqueName(options.name);
  const worker = await startTestPublisher(system, {
    database,
    afterNetworkCall: options.afterNetworkCall,
    ...(options.env === undefined ? {} : { env: options.env }),
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
