import type { RawSql } from '@svc/db';
import type { AccountSummary } from '../domain/accounts-client.ts';

/** One account.state_changed.v1, as the replica stores it. */
export interface AccountState {
  accountId: string;
  orgId: string;
  provider: string;
  handle: string | null;
  health: string;
  ruleExtras: Record<string, string>;
  deleted: boolean;
  version: number;
}

interface ReplicaRow {
  account_id: string;
  provider: AccountSummary['provider'];
  handle: string | null;
  health: AccountSummary['health'];
  rule_extras: Record<string, string>;
  deleted: boolean;
}

/** The publisher's replica of the accounts it publishes to (table account_replicas). */
export class AccountReplicasRepository {
  constructor(private readonly sql: RawSql) {}

  /**
   * Keeps the highest version: a redelivered, overtaken or older event changes nothing, and a delete
   * (final) is never undone. True when the row changed.
   */
  async apply(state: AccountState): Promise<boolean> {
    const changed = await this.sql.$executeRawUnsafe(
      `INSERT INTO account_replicas (account_id, org_id, provider, handle, health, rule_extras, deleted, version, updated_at)
       VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb, $7, $8, now())
       ON CONFLICT (account_id) DO UPDATE SET org_id = EXCLUDED.org_id, provider = EXCLUDED.provider, handle = EXCLUDED.handle, health = EXCLUDED.health,
         rule_extras = EXCLUDED.rule_extras, deleted = EXCLUDED.deleted, version = EXCLUDED.version, updated_at = now()
       WHERE account_replicas.version < EXCLUDED.version AND NOT account_replicas.deleted`,
      state.accountId, state.orgId, state.provider, state.handle, state.health, JSON.stringify(state.ruleExtras), state.deleted, state.version,
    );
    return changed === 1;
  }

  /**
   * The organization's accounts among these ids, one indexed read. `deleted` ones are returned as
   * such (they do not exist for the caller); ids absent from the result are unknown to the replica.
   */
  async find(orgId: string, accountIds: readonly string[]): Promise<{ found: AccountSummary[]; deleted: Set<string> }> {
    const rows = await this.sql.$queryRawUnsafe<ReplicaRow[]>(
      `SELECT account_id::text, provider, handle, health, rule_extras, deleted FROM account_replicas
        WHERE org_id = $1 AND account_id = ANY($2::uuid[])`,
      orgId, accountIds,
    );
    const found: AccountSummary[] = [];
    const deleted = new Set<string>();
    for (const row of rows) {
      if (row.deleted) deleted.add(row.account_id);
      else found.push({ id: row.account_id, provider: row.provider, health: row.health, handle: row.handle, rule_extras: row.rule_extras });
    }
    return { found, deleted };
  }

  /**
   * Copies accounts answered by an RPC lookup, at version 0: only where the replica has no row yet,
   * so an event that arrived meanwhile (version >= 1) is never overwritten by this older read, and
   * the next event replaces the copy.
   */
  async remember(orgId: string, accounts: readonly AccountSummary[]): Promise<void> {
    if (accounts.length === 0) return;
    await this.sql.$executeRawUnsafe(
      `INSERT INTO account_replicas (account_id, org_id, provider, handle, health, rule_extras, deleted, version)
       SELECT a.id, $1, a.provider, a.handle, a.health, COALESCE(a.rule_extras, '{}'::jsonb), false, 0
       FROM jsonb_to_recordset($2::jsonb) AS a(id uuid, provider text, handle text, health text, rule_extras jsonb)
       ON CONFLICT (account_id) DO NOTHING`,
      orgId, JSON.stringify(accounts),
    );
  }
}
