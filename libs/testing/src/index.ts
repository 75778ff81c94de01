export { uniqueName, uniqueNamespace } from './unique-name.ts';
export {
  createTestDatabase,
  TEST_DATABASE_URL,
  TEST_AMQP_URL,
  TEST_REDIS_URL,
  type TestDatabase,
} from './test-database.ts';
export { ensureServiceDatabase } from './service-database.ts';
export { serviceQueues } from './service-queues.ts';
export { waitFor, type WaitForOptions } from './wait-for.ts';
