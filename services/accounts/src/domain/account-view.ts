import type { AccountViewType } from '@svc/contracts';
import type { Network } from '@svc/providers';
import type { AccountRow } from '../data/accounts.repository.ts';

export type Health = AccountViewType['health'];

export function toAccountView(row: AccountRow): AccountViewType {
  const provider = row.provider as Network;
  return {
    id: row.id,
    provider,
    platform: provider,
    platform_account_id: row.platformAccountId,
    handle: row.handle,
    health: row.health as Health,
    connection_type: row.connectionType as 'oauth' | 'byok',
    token_expires_at: row.tokenExpiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * Vault associated data: a ciphertext only decrypts for the organization, row and field it was made
 * for, so a row rewritten to another organization (or copied into one) no longer decrypts.
 */
export const sealedFor = {
  accessToken: (orgId: string, accountId: string) => `org:${orgId}:account:${accountId}:access_token`,
  refreshToken: (orgId: string, accountId: string) => `org:${orgId}:account:${accountId}:refresh_token`,
  clientSecret: (orgId: string, appId: string) => `org:${orgId}:oauth_app:${appId}:client_secret`,
  codeVerifier: (orgId: string, flowId: string) => `org:${orgId}:oauth_flow:${flowId}:code_verifier`,
};

/**
 * The bindings before they named the organization, under which a row could be moved to another
 * organization and still decrypt. Only `reencrypt-secrets` reads them, to seal such rows anew.
 */
export const formerlySealedFor = {
  accessToken: (accountId: string) => `account:${accountId}:access_token`,
  refreshToken: (accountId: string) => `account:${accountId}:refresh_token`,
  clientSecret: (appId: string) => `oauth_app:${appId}:client_secret`,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so callers answer "not found" without a query. */
export const isUuid = (value: string): boolean => UUID.test(value);
