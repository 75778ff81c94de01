// The webhook-dispatcher service owns webhook endpoints, encrypted signing secrets, deliveries and attempts.
import path from 'node:path';
import { workerMain } from '@svc/runtime';
import { loadServiceConfig } from './config.ts';
import { openDispatcherDb } from './data/database.ts';
import { wire } from './wiring.ts';

workerMain({
  name: 'webhook-dispatcher',
  serviceDir: path.resolve(__dirname, '..'),
  loadConfig: loadServiceConfig,
  // No Prisma client in this process (its memory; see data/database.ts): a plain pg pool.
  openClient: openDispatcherDb,
  wire: (runtime, config) => wire(runtime, config),
});
