import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPgRawSql, type PgRawSql } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { AccountReplicasRepository, type AccountState } from '../src/data/account-replicas.repository.ts';
import { replicatedAccountsClient, type AccountsClient, type AccountSummary } from '../src/domain/accounts-client.ts';

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
    accountId, orgId: 'org_r', provider: 'x', handle: '@a', health: 'active', ruleExtras: {}, deleted: false, version, ...change,
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
    expect((await replica.find('org_r', [id])).found).toEqual([{ id, provider: 'x', handle: '@a', health: 'requires_reconnect', rule_extras: {} }]);
    expect(await replica.apply(state(id, 3, { health: 'active', handle: '@b', ruleExtras: { subscription_type: 'Premium' } }))).toBe(true);
    expect((await replica.find('org_r', [id])).found).toEqual([{ id, provider: 'x', handle: '@b', health: 'active', rule_extras: { subscription_type: 'Premium' } }]);
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
    const rpc = fakeRpc({ [fresh]: { id: fresh, provider: 'linkedin', handle: null, health: 'active', rule_extras: {} } });
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
});
