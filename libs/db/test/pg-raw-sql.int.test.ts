import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { createPgRawSql, type PgRawSql } from '../src/pg-raw-sql.ts';

// The plain pg pool the publisher's deliveries run on: its transactions must behave like Prisma's.
let database: TestDatabase;
let sql: PgRawSql;

beforeAll(async () => {
  database = await createTestDatabase({
    prefix: 'pgraw',
    serviceDir: path.resolve(__dirname, '../../../services/accounts'),
  });
  sql = createPgRawSql(database.connection, { max: 2, onIdleError: () => undefined });
  await sql.$executeRawUnsafe('CREATE TABLE pg_raw_probe (n int PRIMARY KEY)');
});
afterAll(async () => {
  await sql.end();
  await database.drop();
});

const count = async () =>
  (await sql.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM pg_raw_probe'))[0]!.n;

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
    await expect(
      sql.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('INSERT INTO pg_raw_probe (n) VALUES (3)');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(
      sql.$transaction((tx) => tx.$executeRawUnsafe('INSERT INTO pg_raw_probe (n) VALUES (4), (1)')),
    ).rejects.toThrow(/duplicate key/);
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
    await expect(
      sql.$transaction(async (tx) => {
        // The server ends this very connection (as a failover or pg_terminate_backend would).
        await tx.$queryRawUnsafe('SELECT pg_terminate_backend(pg_backend_pid())');
      }),
    ).rejects.toThrow();
    // Both of the pool's connections answer afterwards: the dead one was discarded, not reused.
    const answers = await Promise.all([
      sql.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one'),
      sql.$transaction((tx) => tx.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one')),
    ]);
    expect(answers).toEqual([[{ one: 1 }], [{ one: 1 }]]);
  });
});

describe('createPgRawSql prepared statements', () => {
  type Prepared = { statement: string; generic_plans: string; custom_plans: string };
  const preparedOnThisConnection = (tx: { $queryRawUnsafe: PgRawSql['$queryRawUnsafe'] }) =>
    tx.$queryRawUnsafe<Prepared[]>('SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements');

  it('prepares a statement with parameters once per connection, and plans it once after its first runs', async () => {
    const text = 'SELECT count(*)::int AS n FROM pg_raw_probe WHERE n >= $1';
    const prepared = await sql.$transaction(async (tx) => {
      for (let run = 0; run < 8; run += 1)
        expect(await tx.$queryRawUnsafe<{ n: number }[]>(text, 0)).toEqual([{ n: 2 }]);
      return preparedOnThisConnection(tx);
    });
    const mine = prepared.find((row) => row.statement === text);
    expect(mine).toBeDefined();
    // Planned per run until PostgreSQL settles on the generic plan (after five), then reused as is.
    expect(Number(mine!.generic_plans)).toBeGreaterThan(0);
    expect(Number(mine!.custom_plans)).toBeLessThanOrEqual(5);
  });

  it('runs a text without parameters as before: unprepared, and a script of several statements still runs', async () => {
    await sql.$executeRawUnsafe(
      'CREATE TABLE pg_raw_script (n int); INSERT INTO pg_raw_script VALUES (1); DROP TABLE pg_raw_script',
    );
    const prepared = await sql.$transaction(async (tx) => {
      await tx.$queryRawUnsafe('SELECT 41 + 1 AS answer');
      return preparedOnThisConnection(tx);
    });
    expect(prepared.map((row) => row.statement)).not.toContain('SELECT 41 + 1 AS answer');
  });

  it('stops preparing new texts past its bound, so texts built with values inside cannot grow every connection without end', async () => {
    const { prepared, answers } = await sql.$transaction(async (tx) => {
      const seen: number[] = [];
      for (let k = 0; k < 520; k += 1)
        seen.push((await tx.$queryRawUnsafe<{ k: number }[]>(`SELECT ${k}::int + $1::int AS k`, 0))[0]!.k);
      return { prepared: await preparedOnThisConnection(tx), answers: seen };
    });
    expect(answers).toEqual(Array.from({ length: 520 }, (_, k) => k));
    expect(prepared.length).toBeLessThanOrEqual(500);
    expect(prepared.length).toBeGreaterThan(400);
  });
});

describe('createPgRawSql connection lifetime', () => {
  it('replaces a connection after its lifetime, so the plans it kept are made again', async () => {
    const short = createPgRawSql(database.connection, { max: 1, onIdleError: () => undefined, maxLifetimeSeconds: 1 });
    try {
      const backend = async () =>
        (await short.$queryRawUnsafe<{ pid: number }[]>('SELECT pg_backend_pid() AS pid WHERE $1::int = 1', 1))[0]!.pid;
      const first = await backend();
      expect(await backend()).toBe(first);
      // Well past the lifetime, so a late timer on a busy machine still has fired.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const next = await backend();
      expect(next).not.toBe(first);
      // The statement is prepared again on the new connection.
      expect(await backend()).toBe(next);
    } finally {
      await short.end();
    }
  });
});
