// Every raw SQL statement of the services and libraries, prepared against the database its service
// migrates: a statement the schema no longer fits (a renamed column or table, a changed type, a
// dropped function) fails here, with its file and line, instead of at run time. Statements built at
// run time are listed in unresolved-statements.json, each with its reason; that list stays exact.
import path from 'node:path';
import { connectionUrl } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import pg from 'pg';
import {
  checkText,
  describeFailure,
  findRawStatements,
  readAllowlist,
  ROOT,
  type CheckFailure,
  type RawStatement,
} from './raw-statements.ts';

const statements = findRawStatements();
const serviceOf = (statement: RawStatement) => statement.owner.replace(/^service:/, '');
const services = [
  ...new Set(statements.filter((statement) => statement.owner.startsWith('service:')).map(serviceOf)),
].sort();

describe('raw SQL statements', () => {
  const databases = new Map<string, { database: TestDatabase; client: pg.Client }>();

  beforeAll(async () => {
    // Two migrations at a time: each is a Prisma CLI process.
    const queue = [...services];
    const worker = async () => {
      for (let service = queue.shift(); service !== undefined; service = queue.shift()) {
        const database = await createTestDatabase({
          prefix: `sql-${service}`,
          serviceDir: path.join(ROOT, 'services', service),
        });
        const client = new pg.Client({ connectionString: connectionUrl(database.connection) });
        databases.set(service, { database, client });
        await client.connect();
      }
    };
    const results = await Promise.allSettled([worker(), worker()]);
    const failed = results.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }, 240_000);

  afterAll(async () => {
    for (const { database, client } of databases.values()) {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  });

  it('finds the statements of every service that owns a database, and of libs/db', () => {
    expect(services).toEqual([
      'accounts',
      'analytics-sync',
      'billing',
      'gateway',
      'publisher',
      'scheduler',
      'webhook-dispatcher',
    ]);
    expect(statements.filter((statement) => statement.owner === 'lib:db').length).toBeGreaterThan(10);
    expect(statements.filter((statement) => statement.texts !== undefined).length).toBeGreaterThan(100);
  });

  it('lists exactly the statements whose text only run time fixes, each with a reason', () => {
    const allowlist = readAllowlist();
    const key = (entry: { file: string; source: string }) => `${entry.file}: ${entry.source}`;
    const unresolved = statements.filter((statement) => statement.texts === undefined);
    const listed = new Set(allowlist.map(key));
    const found = new Set(unresolved.map(key));
    expect(
      unresolved
        .filter((statement) => !listed.has(key(statement)))
        .map((statement) => `${statement.file}:${statement.line} ${statement.source}`),
    ).toEqual([]);
    expect(allowlist.filter((entry) => !found.has(key(entry))).map(key)).toEqual([]);
    expect(allowlist.filter((entry) => entry.reason.trim().length < 10).map(key)).toEqual([]);
  });

  it('prepares every statement against its service migrated database', async () => {
    const failures: CheckFailure[] = [];
    let checked = 0;
    for (const statement of statements) {
      if (statement.texts === undefined) continue;
      // A library's statement runs in every service that has its tables (the outbox, the inbox): it
      // must fit each database that has them, and at least one.
      const targets = statement.owner.startsWith('service:') ? [serviceOf(statement)] : services;
      for (const [index, text] of statement.texts.entries()) {
        const variant = statement.texts.length > 1 ? `${index + 1}/${statement.texts.length}` : undefined;
        const missingTable: CheckFailure[] = [];
        for (const service of targets) {
          const error = await checkText(databases.get(service)!.client, text);
          if (error === undefined) continue;
          const failure = { statement, database: service, variant, ...error };
          if (error.code === '42P01' && targets.length > 1) missingTable.push(failure);
          else failures.push(failure);
        }
        if (missingTable.length === targets.length) failures.push(...missingTable);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(failures.map(describeFailure)).toEqual([]);
  }, 60_000);
});
