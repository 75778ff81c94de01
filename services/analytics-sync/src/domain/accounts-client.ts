import { credentialsGet, type ReplyOf } from '@svc/contracts';
import type { Broker } from '@svc/messaging';

export type AccountCredentials = ReplyOf<typeof credentialsGet>;

/** What analytics-sync asks the accounts service (RPC): a usable token for an account. */
export interface AccountsClient {
  credentials(orgId: string, accountId: string, forceRefresh: boolean): Promise<AccountCredentials>;
}

export function accountsClient(broker: Broker): AccountsClient {
  return {
    credentials: (orgId, accountId, forceRefresh) =>
      broker.rpc(
        credentialsGet,
        { account_id: accountId, ...(forceRefresh ? { force_refresh: true } : {}) },
        { orgId, requestId: null },
      ),
  };
}
