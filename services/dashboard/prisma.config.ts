// Offline Prisma: the JS schema engine through the shared bridge (libs/db/src/prisma-bridge.ts).
import { servicePrismaConfig } from '../../libs/db/src/service-prisma-config.ts';

export default servicePrismaConfig('dashboard');
