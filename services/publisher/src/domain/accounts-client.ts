import { accountsLookup, credentialsGet, type ReplyOf } from '@svc/contracts';
import type { Broker } from '@svc/messaging';
import type { AccountReplicasRepository } from '../data/account-replicas.repository.ts';
import { isUuid } from '../data/jobs.repository.ts';

export type AccountSummary = ReplyOf<typeof accountsLookup>['items'][number];
export type AccountCredentials = ReplyOf<typeof credentialsGet>;

/** What the publisher asks the accounts service (RPC): which accounts exist, and usable tokens. */
export interface AccountsClient {
  lookup(orgId: string, accountIds: string[], requestId: string | null): Promise<AccountSummary[]>;
  credentials(
    orgId: string,
    accountId: string,
    forceRefresh: boolean,
    requestId: string | null,
  ): Promise<AccountCredentials>;
}

export function accountsClient(broker: Broker): AccountsClient {
  return {
    lookup: async (orgId, accountIds, requestId) =>
      (await broker.rpc(accountsLookup, { account_ids: accountIds }, { orgId, requestId })).items,
    credentials: (orgId, accountId, forceRefresh, requestId) =>
      broker.rpc(
        credentialsGet,
        { account_id: accountId, ...(forceRefresh ? { force_refresh: true } : {}) },
        { orgId, requestId },
      ),
  };
}

/**
 * Lookups answered from the publisher's replica (account_replicas, fed by account.state_changed.v1),
 * with the RPC only for what the replica does not know yet: an account connected moments ago whose
 * event is still on its way, or one that has not changed since before the replica existed. What the
 * RPC answers is copied into the replica (an event later replaces it). A replica that lags can only
 * be behind by the relay's delay; an account revoked in that window and still shown usable here is
 * refused at delivery, which asks accounts for credentials anyway (docs/architecture.md).
 * Account ids are UUIDs: anything else names no account, without a query.
 */
export function replicatedAccountsClient(replica: AccountReplicasRepository, rpc: AccountsClient): AccountsClient {
  return {
    lookup: async (orgId, accountIds, requestId) => {
      const ids = accountIds.filter(isUuid);
      if (ids.length === 0) return [];
      const { found, deleted } = await replica.find(orgId, ids);
      const known = new Set(found.map((account) => account.id));
      const missing = ids.filter((id) => !known.has(id) && !deleted.has(id));
      if (missing.length === 0) return found;
      const fetched = await rpc.lookup(orgId, missing, requestId);
      await replica.remember(orgId, fetched);
      return [...found, ...fetched];
    },
    credentials: (orgId, accountId, forceRefresh, requestId) =>
      rpc.credentials(orgId, accountId, forceRefresh, requestId),
  };
}
