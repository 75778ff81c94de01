import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPgRawSql, type PgRawSql } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { ACCEPT_SESSION_SETTINGS } from '../src/data/accept.repository.ts';
import { AccountReplicasRepository, type AccountState } from '../src/data/account-replicas.repository.ts';
import { replicatedAccountsClient, type AccountsClient, type AccountSummary } from '../src/domain/accounts-client.ts';
import { planningSql, tableReads } from './statement-plans.ts';

/** The publisher's replica of accounts (publisher database only; the events themselves: test/publishing/account-replica). */
describe('account replica', () => {
  let database: TestDatabase;
  let sql: PgRawSql;
  let replica: AccountReplicasRepository;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-replica', serviceDir: path.resolve(__dirname, '..') });
    sql = createPgRawSql(database.connection, { max: 2, onIdleError: () => undefined });
    replica = new AccountReplicasRepository(sql);
  }, 60_000);

  afterAll(async () => {
    await sql?.end();
    await database?.drop();
  });

  const state = (accountId: string, version: number, change: Partial<AccountState> = {}): AccountState => ({
    accountId,
    orgId: 'org_r',
    provider: 'x',
    handle: '@a',
    health: 'active',
    ruleExtras: {},
    deleted: false,
    version,
    ...change,
  });

  /** An accounts RPC that answers from a map and counts the ids it was asked about. */
  function fakeRpc(accounts: Record<string, AccountSummary>): AccountsClient & { asked: string[] } {
    const asked: string[] = [];
    return {
      asked,
      lookup: async (_orgId, ids) => {
        asked.push(...ids);
        return ids.flatMap((id) => (accounts[id] === undefined ? [] : [accounts[id]]));
      },
      credentials: async () => {
        throw new Error('not used');
      },
    };
  }

  it('keeps the highest version: an older or repeated event changes nothing', async () => {
    const id = randomUUID();
    expect(await replica.apply(state(id, 2, { health: 'requires_reconnect' }))).toBe(true);
    expect(await replica.apply(state(id, 1, { health: 'active' }))).toBe(false);
    expect(await replica.apply(state(id, 2, { health: 'active' }))).toBe(false);
    expect((await replica.find('org_r', [id])).found).toEqual([
      { id, provider: 'x', handle: '@a', health: 'requires_reconnect', rule_extras: {} },
    ]);
    expect(
      await replica.apply(
        state(id, 3, { health: 'active', handle: '@b', ruleExtras: { subscription_type: 'Premium' } }),
      ),
    ).toBe(true);
    expect((await replica.find('org_r', [id])).found).toEqual([
      { id, provider: 'x', handle: '@b', health: 'active', rule_extras: { subscription_type: 'Premium' } },
    ]);
  });

  it('a delete is final, whatever arrives after it', async () => {
    const id = randomUUID();
    await replica.apply(state(id, 5, { deleted: true }));
    expect(await replica.apply(state(id, 9))).toBe(false);
    expect(await replica.find('org_r', [id])).toEqual({ found: [], deleted: new Set([id]) });
  });

  it('shows an account only to its organization', async () => {
    const id = randomUUID();
    await replica.apply(state(id, 1));
    expect((await replica.find('org_other', [id])).found).toEqual([]);
  });

  it('answers from the replica, asks the RPC only for what it does not know, and keeps what the RPC said', async () => {
    const [known, fresh, gone, absent] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await replica.apply(state(known, 1));
    await replica.apply(state(gone, 2, { deleted: true }));
    const rpc = fakeRpc({
      [fresh]: { id: fresh, provider: 'linkedin', handle: null, health: 'active', rule_extras: {} },
    });
    const client = replicatedAccountsClient(replica, rpc);
    const first = await client.lookup('org_r', [known, fresh, gone, absent, 'not-a-uuid'], null);
    expect(first.map((account) => account.id).sort()).toEqual([known, fresh].sort());
    expect(rpc.asked.sort()).toEqual([fresh, absent].sort());
    rpc.asked.length = 0;
    expect((await client.lookup('org_r', [fresh], null)).map((account) => account.provider)).toEqual(['linkedin']);
    expect(rpc.asked).toEqual([]);
  });

  it('an RPC answer never overwrites an event, and the next event replaces an RPC answer', async () => {
    const id = randomUUID();
    await replica.apply(state(id, 4, { health: 'revoked' }));
    await replica.remember('org_r', [{ id, provider: 'x', handle: '@a', health: 'active', rule_extras: {} }]);
    expect((await replica.find('org_r', [id])).found[0]?.health).toBe('revoked');

    const other = randomUUID();
    await replica.remember('org_r', [{ id: other, provider: 'x', handle: '@a', health: 'active', rule_extras: {} }]);
    expect(await replica.apply(state(other, 1, { health: 'requires_reconnect' }))).toBe(true);
    expect((await replica.find('org_r', [other])).found[0]?.health).toBe('requires_reconnect');
  });

  it("answers lookups made at once in one statement, each with its own organization's accounts only", async () => {
    const [a1, a2, b1] = [randomUUID(), randomUUID(), randomUUID()];
    await replica.apply(state(a1, 1, { orgId: 'org_ga', handle: '@a1' }));
    await replica.apply(state(a2, 1, { orgId: 'org_ga', handle: '@a2', deleted: true }));
    await replica.apply(state(b1, 1, { orgId: 'org_gb', handle: '@b1' }));
    let statements = 0;
    const counted = new AccountReplicasRepository({
      ...sql,
      $queryRawUnsafe: (query, ...values) => {
        statements += 1;
        return sql.$queryRawUnsafe(query, ...values);
      },
    });
    const [a, b, bAskingForA, none] = await Promise.all([
      counted.find('org_ga', [a1, a2, b1]),
      counted.find('org_gb', [b1]),
      counted.find('org_gb', [a1, a2]),
      counted.find('org_ga', []),
    ]);
    expect(statements).toBe(1);
    expect(a).toEqual({
      found: [{ id: a1, provider: 'x', handle: '@a1', health: 'active', rule_extras: {} }],
      deleted: new Set([a2]),
    });
    expect(b.found.map((account) => account.id)).toEqual([b1]);
    // Another organization's accounts, live or deleted, do not exist for it.
    expect(bAskingForA).toEqual({ found: [], deleted: new Set() });
    expect(none).toEqual({ found: [], deleted: new Set() });
  });

  it('reads the replica by primary key, even in a plan made on an empty table', async () => {
    const fresh = await createTestDatabase({
      prefix: 'publisher-replica-plan',
      serviceDir: path.resolve(__dirname, '..'),
    });
    const writer = createPgRawSql(fresh.connection, { max: 1, onIdleError: () => undefined });
    // Generic, as an accept connection plans a statement it has run five times and keeps it for its
    // life, with the accept pool's settings.
    const planner = createPgRawSql(fresh.connection, {
      max: 1,
      onIdleError: () => undefined,
      settings: { plan_cache_mode: 'force_generic_plan', ...ACCEPT_SESSION_SETTINGS },
    });
    let reads: string[] = [];
    const explaining = new AccountReplicasRepository(
      planningSql(planner, (plan) => {
        reads = tableReads(plan, ['account_replicas']);
      }),
    );
    try {
      await explaining.find('org_plan', [randomUUID(), randomUUID()]);
      expect(reads).toEqual(['account_replicas account_replicas_pkey']);
      await writer.$executeRawUnsafe(
        `INSERT INTO account_replicas (account_id, org_id, provider, health, version)
         SELECT gen_random_uuid(), 'org_' || (n % 50), 'x', 'active', 1 FROM generate_series(1, 5000) n`,
      );
      await writer.$executeRawUnsafe('ANALYZE account_replicas');
      await explaining.find('org_plan', [randomUUID(), randomUUID()]);
      expect(reads).toEqual(['account_replicas account_replicas_pkey']);
    } finally {
      await planner.end();
      await writer.end();
      await fresh.drop();
    }
  }, 60_000);
});
