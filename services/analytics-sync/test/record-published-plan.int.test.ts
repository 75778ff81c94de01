import path from 'node:path';
import { createPgRawSql, type RawSql } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { AnalyticsRepository, type NewRow } from '../src/data/analytics.repository.ts';
import type { PrismaClient } from '../src/generated/prisma/client.ts';

/**
 * Recording a post.published event on a connection that recorded events while the table was empty:
 * a plan cached then must not read the organization's history on every event once it has one.
 */
describe("recording published posts beside an organization's history", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    // Its own database: the tables start empty, as at a deployment's start.
    database = await createTestDatabase({ prefix: 'analytics-record-plan', serviceDir: path.resolve(__dirname, '..') });
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  it("looks each new row up by its key, not through the organization's other rows, after its first events on an empty table", async () => {
    // One connection, kept for the whole test, as a pool's connection is for a minute.
    const sql = createPgRawSql(database.connection, { max: 1, onIdleError: () => undefined });
    const repo = new AnalyticsRepository(sql as unknown as PrismaClient, sql);
    let posts = 0;
    const rows = (count: number): NewRow[] => {
      const postId = `post_${++posts}`;
      return Array.from({ length: count }, (_, n) => ({
        orgId: 'org_history',
        postId,
        accountId: `acct_${n}`,
        platform: 'x',
        platformPostId: `${postId}_${n}`,
        platformPostUrl: null,
        text: 'hello',
        createdAt: new Date(),
        publishedAt: null,
        nextSyncAt: new Date(),
      }));
    };
    const record = (tx: RawSql, count: number) => repo.insertPublished(tx, rows(count));
    try {
      for (let n = 0; n < 8; n++) await sql.$transaction((tx) => record(tx, 1)); // the statement's first runs: an empty table
      for (let n = 0; n < 50; n++) await sql.$transaction((tx) => record(tx, 100)); // 5,000 rows of the organization

      const read = await sql.$transaction(async (tx) => {
        // The rows of analytics_rows this backend read, by scan and fetched through an index, not yet
        // flushed to the shared statistics (so also earlier transactions'): counted before and after.
        const counts = async () => {
          const [row] = await tx.$queryRawUnsafe<{ seq: string; index: string }[]>(
            "SELECT seq_tup_read::text AS seq, idx_tup_fetch::text AS index FROM pg_stat_xact_user_tables WHERE relname = 'analytics_rows'",
          );
          return { seq: Number(row!.seq), index: Number(row!.index) };
        };
        const before = await counts();
        expect(await record(tx, 1)).toBe(1);
        const after = await counts();
        return { seq: after.seq - before.seq, index: after.index - before.index };
      });
      // The new row's key, looked up once: a read of the organization's 5,008 rows is thousands.
      expect(read.seq).toBe(0);
      expect(read.index).toBeLessThan(5);
    } finally {
      await sql.end();
    }
  }, 60_000);
});
