import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPgRawSql, type PgRawSql } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { DELIVERY_SESSION_SETTINGS, readDeliveriesToRun } from '../src/data/delivery-to-run.ts';

describe("the delivery pool's sessions (publisher database)", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-session', serviceDir: path.resolve(__dirname, '..') });
    const setup = createPgRawSql(database.connection, { max: 1, onIdleError: () => undefined });
    // Tens of thousands of deliveries: on small tables the generic plan looks cheap enough and is taken.
    await setup.$executeRawUnsafe(
      `INSERT INTO jobs (id, org_id, status, text, account_ids, providers, updated_at)
       SELECT gen_random_uuid(), 'org_session', 'queued', 'hello', ARRAY['a1', 'a2'], ARRAY['x'], now() FROM generate_series(1, 20000)`,
    );
    await setup.$executeRawUnsafe(
      `INSERT INTO deliveries (id, job_id, org_id, account_id, provider, position, status, updated_at)
       SELECT gen_random_uuid(), j.id, j.org_id, a.account, 'x', a.position, 'pending', now()
         FROM jobs j CROSS JOIN (VALUES ('a1', 0), ('a2', 1)) AS a(account, position)`,
    );
    await setup.$executeRawUnsafe('ANALYZE');
    await setup.end();
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  /** Reads groups of 3 deliveries ten times on one connection; how that connection planned the read. */
  async function planning(sql: PgRawSql): Promise<{ generic: number; custom: number }> {
    const ids = (await sql.$queryRawUnsafe<{ id: string }[]>('SELECT id::text AS id FROM deliveries LIMIT 30')).map(
      (row) => row.id,
    );
    for (let group = 0; group < 10; group++) {
      const read = await readDeliveriesToRun(sql, [...ids.slice(group * 3, group * 3 + 3), randomUUID()]);
      expect(read.filter((item) => item !== undefined)).toHaveLength(3);
    }
    const [row] = await sql.$queryRawUnsafe<{ generic: number; custom: number }[]>(
      "SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE '%FROM deliveries d JOIN jobs j%'",
    );
    return row!;
  }

  it("plans the grouped read once per connection, where PostgreSQL's default planned it again on every call", async () => {
    const plain = createPgRawSql(database.connection, { max: 1, onIdleError: () => undefined });
    const delivery = createPgRawSql(database.connection, {
      max: 1,
      onIdleError: () => undefined,
      settings: { ...DELIVERY_SESSION_SETTINGS },
    });
    try {
      // The default: a generic plan for 10 ids looks dearer than a custom one for 3, so every call is planned.
      expect(await planning(plain)).toEqual({ generic: 0, custom: 10 });
      expect(await planning(delivery)).toEqual({ generic: 10, custom: 0 });
    } finally {
      await Promise.all([plain.end(), delivery.end()]);
    }
  });
});
