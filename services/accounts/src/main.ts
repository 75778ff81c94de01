// The accounts service owns connected accounts, encrypted credentials, BYOK OAuth apps, OAuth flows and token refresh.
import './instrument.ts';
import path from 'node:path';
import { workerMain } from '@svc/runtime';
import { loadServiceConfig } from './config.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { wire } from './wiring.ts';

workerMain({
  name: 'accounts',
  serviceDir: path.resolve(__dirname, '..'),
  loadConfig: loadServiceConfig,
  createClient: (adapter) => new PrismaClient({ adapter }),
  wire: (runtime, config) => wire(runtime, config),
});
