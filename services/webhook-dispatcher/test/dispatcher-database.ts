// The dispatcher's repositories on a throwaway migrated database, for the tests that check them at the
// SQL level. Registers its own beforeAll/afterAll; the fields are set once beforeAll has run.
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { openPgDatabase, type PgDatabase } from '@svc/db';
import { DeliveriesRepository } from '../src/data/deliveries.repository.ts';
import { EndpointsRepository } from '../src/data/endpoints.repository.ts';

export interface DispatcherDatabase {
  db: PgDatabase;
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
}

export function useDispatcherDatabase(prefix: string): DispatcherDatabase {
  const state = {} as DispatcherDatabase;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase({ prefix, serviceDir: path.resolve(__dirname, '..') });
    // An idle connection dropped by the server is nothing these tests check; the pool replaces it.
    state.db = openPgDatabase(database.connection, { max: 4, onPoolError: () => undefined });
    state.endpoints = new EndpointsRepository(state.db);
    state.deliveries = new DeliveriesRepository(state.db);
  });
  afterAll(async () => {
    await state.db?.$disconnect();
    await database?.drop();
  });
  return state;
}
