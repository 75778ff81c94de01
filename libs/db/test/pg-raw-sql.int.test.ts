import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { createPgRawSql, type PgRawSql } from '../src/pg-raw-sql.ts';

// The plain pg pool the publisher's deliveries run on: its transactions must behave like Prisma's.
let database: TestDatabase;
let sql: PgRawSql;

beforeAll(async () => {
  database = await createTestDatabase({ prefix: 'pgraw', serviceDir: path.resolve(__dirname, '../../../services/accounts') });
  sql = createPgRawSql(database.connection, { max: 2, onIdleError: () => undefined });
  await sql.$executeRawUnsafe('CREATE TABLE pg_raw_probe (n int PRIMARY KEY)');
});
afterAll(async () => {
  await sql.end();
  await database.drop();
});

const count = async () => (await sql.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM pg_raw_probe'))[0]!.n;

describe('createPgRawSql transactions', () => {
  it('commits every statement of a transaction that returns, and hands back its result', async () => {
    const result = await sql.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('INSERT INTO pg_raw_probe (n) VALUES ($1), ($2)', 1, 2);
      return tx.$queryRawUnsafe<{ n: number }[]>('SELECT n FROM pg_raw_probe ORDER BY n');
    });
    expect(result).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await count()).toBe(2);
  });

  it('rolls back every statement of a transaction that throws, and rethrows its error', async () => {
    await expect(sql.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('INSERT INTO pg_raw_probe (n) VALUES (3)');
      throw new Error('changed my mind');
    })).rejects.toThrow('changed my mind');
    await expect(sql.$transaction((tx) => tx.$executeRawUnsafe('INSERT INTO pg_raw_probe (n) VALUES (4), (1)'))).rejects.toThrow(/duplicate key/);
    expect(await count()).toBe(2);
  });

  it('runs the statements of a transaction on one connection (its locks and its view are its own)', async () => {
    const pids = await sql.$transaction(async (tx) => {
      const first = await tx.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      const second = await tx.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      return [first[0]!.pid, second[0]!.pid];
    });
    expect(pids[0]).toBe(pids[1]);
  });

  it('does not give a connection that died inside a transaction to the next caller', async () => {
    await expect(sql.$transaction(async (tx) => {
      // The server ends this very connection (as a failover or pg_terminate_backend would).
      await tx.$queryRawUnsafe('SELECT pg_terminate_backend(pg_backend_pid())');
    })).rejects.toThrow();
    // Both of the pool's connections answer afterwards: the dead one was discarded, not reused.
    const answers = await Promise.all([sql.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one'), sql.$transaction((tx) => tx.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one'))]);
    expect(answers).toEqual([[{ one: 1 }], [{ one: 1 }]]);
  });
});
