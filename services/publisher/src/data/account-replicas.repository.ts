import { BatchQueue, type RawSql } from '@svc/db';
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
  /** The position of the lookup in its group. */
  n: number;
  account_id: string;
  provider: AccountSummary['provider'];
  handle: string | null;
  health: AccountSummary['health'];
  rule_extras: Record<string, string>;
  deleted: boolean;
}

interface Lookup {
  orgId: string;
  accountIds: readonly string[];
}

/**
 * The lookups of a group, each account by its primary key and only within its own organization:
 * one round trip for every accept validated meanwhile.
 */
const FIND_SQL = `
SELECT i.n, r.account_id::text AS account_id, r.provider, r.handle, r.health, r.rule_extras, r.deleted
  FROM unnest($1::int[], $2::text[], $3::uuid[]) AS i(n, org_id, account_id)
  JOIN account_replicas r ON r.account_id = i.account_id AND r.org_id = i.org_id`;

/** The publisher's replica of the accounts it publishes to (table account_replicas). */
export class AccountReplicasRepository {
  /**
   * Every accept reads the replica once: the reads of the accepts that arrive while one runs share
   * the next statement (a statement per accept would be a quarter of the accept benchmark's
   * statements, docs/performance.md, "Accept path").
   */
  private readonly lookups: BatchQueue<Lookup, ReplicaRow[]>;

  constructor(private readonly sql: RawSql) {
    this.lookups = new BatchQueue((group) => this.findGroup(group), { maxSize: 100, maxInFlight: 1 });
  }

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
      state.accountId,
      state.orgId,
      state.provider,
      state.handle,
      state.health,
      JSON.stringify(state.ruleExtras),
      state.deleted,
      state.version,
    );
    return changed === 1;
  }

  /**
   * The organization's accounts among these ids, one indexed read. `deleted` ones are returned as
   * such (they do not exist for the caller); ids absent from the result are unknown to the replica.
   */
  async find(orgId: string, accountIds: readonly string[]): Promise<{ found: AccountSummary[]; deleted: Set<string> }> {
    const rows = await this.lookups.add({ orgId, accountIds });
    const found: AccountSummary[] = [];
    const deleted = new Set<string>();
    for (const row of rows) {
      if (row.deleted) deleted.add(row.account_id);
      else
        found.push({
          id: row.account_id,
          provider: row.provider,
          health: row.health,
          handle: row.handle,
          rule_extras: row.rule_extras,
        });
    }
    return { found, deleted };
  }

  private async findGroup(group: Lookup[]): Promise<ReplicaRow[][]> {
    const pairs = group.flatMap((lookup, n) =>
      lookup.accountIds.map((accountId) => ({ n, orgId: lookup.orgId, accountId })),
    );
    const answers = group.map((): ReplicaRow[] => []);
    if (pairs.length === 0) return answers;
    const rows = await this.sql.$queryRawUnsafe<ReplicaRow[]>(
      FIND_SQL,
      pairs.map((pair) => pair.n),
      pairs.map((pair) => pair.orgId),
      pairs.map((pair) => pair.accountId),
    );
    for (const row of rows) answers[row.n]!.push(row);
    return answers;
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
      orgId,
      JSON.stringify(accounts),
    );
  }
}
