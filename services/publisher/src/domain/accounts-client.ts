import { accountsLookup, credentialsGet, type ReplyOf } from '@svc/contracts';
import type { Broker } from '@svc/messaging';

export type AccountSummary = ReplyOf<typeof accountsLookup>['items'][number];
export type AccountCredentials = ReplyOf<typeof credentialsGet>;

/** What the publisher asks the accounts service (RPC): which accounts exist, and usable tokens. */
export interface AccountsClient {
  lookup(orgId: string, accountIds: string[], requestId: string | null): Promise<AccountSummary[]>;
  credentials(orgId: string, accountId: string, forceRefresh: boolean, requestId: string | null): Promise<AccountCredentials>;
}

export function accountsClient(broker: Broker): AccountsClient {
  return {
    lookup: async (orgId, accountIds, requestId) => (await broker.rpc(accountsLookup, { account_ids: accountIds }, { orgId, requestId })).items,
    credentials: (orgId, accountId, forceRefresh, requestId) =>
      broker.rpc(credentialsGet, { account_id: accountId, ...(forceRefresh ? { force_refresh: true } : {}) }, { orgId, requestId }),
  };
}
