// The webhook-dispatcher service owns webhook endpoints, encrypted signing secrets, deliveries and attempts.
import './instrument.ts';
import path from 'node:path';
import { workerMain } from '@svc/runtime';
import { loadServiceConfig } from './config.ts';
import { openPgDatabase } from '@svc/db';
import { wire } from './wiring.ts';

workerMain({
  name: 'webhook-dispatcher',
  serviceDir: path.resolve(__dirname, '..'),
  loadConfig: loadServiceConfig,
  // No Prisma client in this process (its memory; see openPgDatabase of @svc/db): a plain pg pool.
  openClient: openPgDatabase,
  wire: (runtime, config) => wire(runtime, config),
});
