// The scheduler service owns due times of scheduled jobs.
import './instrument.ts';
import path from 'node:path';
import { workerMain } from '@svc/runtime';
import { loadServiceConfig } from './config.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { wire } from './wiring.ts';

workerMain({
  name: 'scheduler',
  serviceDir: path.resolve(__dirname, '..'),
  loadConfig: loadServiceConfig,
  createClient: (adapter) => new PrismaClient({ adapter }),
  wire: (runtime, config) => wire(runtime, config),
});
