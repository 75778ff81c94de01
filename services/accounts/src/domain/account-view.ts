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

/** Vault associated data: a ciphertext only decrypts for the row and field it was made for. */
export const sealedFor = {
  accessToken: (accountId: string) => `account:${accountId}:access_token`,
  refreshToken: (accountId: string) => `account:${accountId}:refresh_token`,
  clientSecret: (appId: string) => `oauth_app:${appId}:client_secret`,
  codeVerifier: (flowId: string) => `oauth_flow:${flowId}:code_verifier`,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row, so callers answer "not found" without a query. */
export const isUuid = (value: string): boolean => UUID.test(value);
