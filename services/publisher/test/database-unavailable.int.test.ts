import path from 'node:path';
import pg from 'pg';
import { createPgRawSql, createPrismaAdapter } from '@svc/db';
import { toErrorBody } from '@svc/errors';
import { createTestDatabase, uniqueName, type TestDatabase } from '@svc/testing';
import { PrismaClient } from '../src/generated/prisma/client.ts';

/**
 * A database that refuses connections (as PostgreSQL does past max_connections: SQLSTATE 53300) is
 * a 503 the caller may retry, not a 500 that says our code is wrong: through Prisma's driver adapter
 * and through node-postgres, as the services reach their databases. The refusal is a real server's,
 * to a role allowed no connections.
 */
describe('a database that refuses connections', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  const role = uniqueName('t_refused').toLowerCase();

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-unavailable', serviceDir: path.resolve(__dirname, '..') });
    admin = new pg.Client(database.connection);
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 0`);
  }, 60_000);

  afterAll(async () => {
    await admin?.query(`DROP ROLE IF EXISTS ${role}`);
    await admin?.end();
    await database?.drop();
  });

  const refused = () => ({ ...database.connection, user: role, password: '' });

  it('answers 503 service_unavailable through Prisma, for a model query and a raw one', async () => {
    const db = new PrismaClient({ adapter: createPrismaAdapter(refused()) });
    try {
      for (const query of [
        () => db.job.findUnique({ where: { id: '00000000-0000-4000-8000-000000000000' } }),
        () => db.$queryRawUnsafe('SELECT 1'),
      ]) {
        const error = await query().then(
          () => undefined,
          (failure: unknown) => failure,
        );
        expect(toErrorBody(error, 'r').body.error.code).toBe('service_unavailable');
        expect(toErrorBody(error, 'r').status).toBe(503);
      }
    } finally {
      await db.$disconnect();
    }
  });

  it('answers 503 service_unavailable through node-postgres', async () => {
    const sql = createPgRawSql(refused(), { max: 1, onIdleError: () => undefined });
    try {
      const error = await sql.$queryRawUnsafe('SELECT 1').then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(toErrorBody(error, 'r')).toEqual({
        status: 503,
        body: { error: { code: 'service_unavailable', message: expect.any(String), request_id: 'r' } },
      });
    } finally {
      await sql.end();
    }
  });
});
