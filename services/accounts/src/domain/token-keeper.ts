import { randomUUID } from 'node:crypto';
import { connectionRevoked, createEnvelope } from '@svc/contracts';
import type { Vault } from '@svc/crypto';
import { enqueueOutbox } from '@svc/db';
import { AppError, notFound } from '@svc/errors';
import { currentContext, type Logger } from '@svc/logger';
import { isProviderError, type Network, type ProviderError, type Providers, type TokenSet } from '@svc/providers';
import type { AccountRow, AccountsRepository } from '../data/accounts.repository.ts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { isUuid, sealedFor, type Health } from './account-view.ts';
import type { OAuthApps } from './oauth-apps.ts';
import { connectionLost } from './provider-failure.ts';
import type { RefreshOutcome } from './token-refresh-metric.ts';

export interface TokenKeeperDeps {
  db: PrismaClient;
  accounts: AccountsRepository;
  apps: OAuthApps;
  providers: Providers;
  vault: Vault;
  logger: Logger;
  /** Refresh when the token expires sooner than this. */
  refreshAheadMs: number;
  /** How long one refresh may hold an account: longer than the network call it waits for. */
  leaseMs: number;
  /** Counts each refresh's outcome (the token refresh metric). */
  onRefresh?: (provider: string, outcome: RefreshOutcome) => void;
}

type Outcome = { ok: true; row: AccountRow } | { ok: false; error: AppError };

const UNUSABLE: readonly string[] = ['revoked', 'requires_reconnect'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Owns the token lifecycle of connected accounts. A refresh holds the account's lease (a column,
 * taken and released in single statements), so concurrent callers (RPC, the background pass, other
 * replicas) never spend one rotating refresh token twice, and whoever comes second finds the fresh
 * token. No row lock or pooled connection is held across the network call: a row lock once did, and
 * one tenant forcing refreshes while a network was slow could starve the pool. A refresh the network
 * refuses marks the account and emits `connection.revoked` in one transaction; a transient failure
 * changes nothing.
 */
export class TokenKeeper {
  constructor(private readonly deps: TokenKeeperDeps) {}

  accessToken(row: AccountRow): string {
    return this.deps.vault.decrypt(row.accessToken, sealedFor.accessToken(row.orgId, row.id));
  }

  dueSoon(row: AccountRow, now = Date.now()): boolean {
    return row.tokenExpiresAt !== null && row.tokenExpiresAt.getTime() - now < this.deps.refreshAheadMs;
  }

  assertUsable(row: AccountRow): void {
    if (UNUSABLE.includes(row.health)) {
      throw new AppError(
        'conflict',
        `The ${row.provider} account ${row.id} needs reconnecting (health: ${row.health}).`,
        {
          details: [
            {
              message: 'reconnect the account through OAuth or POST /v1/accounts',
              health: row.health,
              account_id: row.id,
            },
          ],
        },
      );
    }
  }

  /**
   * Refreshes (or, where the network has no refresh, re-validates) the account's token. `force`
   * refreshes even when the token is not near expiry. Throws 404, 409 (the connection is gone) or 503.
   */
  async refresh(orgId: string, accountId: string, force: boolean): Promise<AccountRow> {
    if (!isUuid(accountId)) throw notFound(`The account ${accountId}`);
    const started = new Date();
    const waitUntil = Date.now() + this.deps.leaseMs;
    for (;;) {
      const owner = randomUUID();
      const claimed = await this.deps.accounts.claimRefreshLease(orgId, accountId, owner, this.deps.leaseMs);
      if (claimed === null) throw notFound(`The account ${accountId}`);
      if (claimed === 'busy') {
        // Another refresh is running: its result is ours too once it lands.
        if (Date.now() >= waitUntil)
          throw new AppError(
            'service_unavailable',
            `A refresh of account ${accountId} is already in progress; try again shortly.`,
            { retryable: true },
          );
        await sleep(100);
        const current = await this.deps.accounts.find(orgId, accountId);
        if (current === null) throw notFound(`The account ${accountId}`);
        if (current.lastRefreshedAt !== null && current.lastRefreshedAt >= started) {
          this.assertUsable(current);
          return current;
        }
        continue;
      }
      try {
        return await this.refreshHeld(claimed, started, force);
      } finally {
        await this.deps.accounts.releaseRefreshLease(claimed.id, owner);
      }
    }
  }

  private async refreshHeld(row: AccountRow, started: Date, force: boolean): Promise<AccountRow> {
    this.assertUsable(row);
    // Someone refreshed it while this caller waited for the lease.
    if (row.lastRefreshedAt !== null && row.lastRefreshedAt >= started) return row;
    if (!force && !this.dueSoon(row)) return row;
    const outcome = await this.renew(row);
    if (!outcome.ok) throw outcome.error;
    return outcome.row;
  }

  /** The network call runs outside any transaction; only its result is written, in one. */
  private async renew(row: AccountRow): Promise<Outcome> {
    const network = row.provider as Network;
    const adapter = this.deps.providers[network];
    const app =
      row.refreshToken === null ? undefined : await this.deps.apps.forConnection(network, row.orgId, row.oauthAppId);
    try {
      if (row.refreshToken !== null && app !== undefined) {
        const refreshToken = this.deps.vault.decrypt(row.refreshToken, sealedFor.refreshToken(row.orgId, row.id));
        const tokens = await adapter.oauth.refresh({ app, refreshToken });
        const stored = await this.store(this.deps.db, row, tokens);
        this.deps.onRefresh?.(row.provider, 'refreshed');
        return { ok: true, row: stored };
      }
      // Nothing to refresh with (Facebook Page tokens, BYOK tokens): prove the token still works.
      await adapter.profile.fetch({ accessToken: this.accessToken(row), extras: row.extras as Record<string, string> });
      const checked = await this.deps.accounts.update(row.id, {
        health: row.health === 'expiring' ? 'expiring' : 'active',
        lastRefreshedAt: new Date(),
        lastRefreshError: null,
      });
      this.deps.onRefresh?.(row.provider, 'refreshed');
      return { ok: true, row: checked };
    } catch (error) {
      if (!isProviderError(error)) throw error;
      const outcome = await this.deps.db.$transaction((tx) => this.fail(tx, row, error));
      this.deps.onRefresh?.(row.provider, connectionLost(error) ? 'connection_lost' : 'transient_failure');
      return outcome;
    }
  }

  private async store(
    tx: Prisma.TransactionClient | PrismaClient,
    row: AccountRow,
    tokens: TokenSet,
  ): Promise<AccountRow> {
    return this.deps.accounts.update(
      row.id,
      {
        accessToken: this.deps.vault.encrypt(tokens.accessToken, sealedFor.accessToken(row.orgId, row.id)),
        // Networks that rotate (X, TikTok) invalidate the old refresh token: always keep the new one.
        ...(tokens.refreshToken === undefined
          ? {}
          : { refreshToken: this.deps.vault.encrypt(tokens.refreshToken, sealedFor.refreshToken(row.orgId, row.id)) }),
        tokenExpiresAt: tokens.expiresAt ?? null,
        ...(tokens.refreshExpiresAt === undefined ? {} : { refreshExpiresAt: tokens.refreshExpiresAt }),
        ...(tokens.scopes === undefined ? {} : { scopes: tokens.scopes }),
        health: 'active',
        lastRefreshedAt: new Date(),
        lastRefreshError: null,
      },
      tx,
    );
  }

  private async fail(tx: Prisma.TransactionClient, row: AccountRow, error: ProviderError): Promise<Outcome> {
    const reason = `${error.kind}: ${error.networkMessage}`.slice(0, 1000);
    if (!connectionLost(error)) {
      await this.deps.accounts.update(row.id, { lastRefreshError: reason }, tx);
      this.deps.logger.warn({ account_id: row.id, kind: error.kind }, 'token refresh failed transiently');
      return {
        ok: false,
        error: new AppError(
          'service_unavailable',
          `Refreshing the ${row.provider} token failed for now (${error.networkMessage}); try again later.`,
          { retryable: true, cause: error },
        ),
      };
    }
    const health: Health = error.kind === 'auth_revoked' ? 'revoked' : 'requires_reconnect';
    await this.markLost(tx, row, health, reason);
    return {
      ok: false,
      error: new AppError(
        'conflict',
        `The ${row.provider} refused to refresh the token (${error.networkMessage}); the account needs reconnecting.`,
        {
          details: [{ message: error.networkMessage, kind: error.kind, health, account_id: row.id }],
        },
      ),
    };
  }

  /** Marks the connection lost and announces it, in the caller's transaction. */
  async markLost(tx: Prisma.TransactionClient, row: AccountRow, health: Health, reason: string): Promise<void> {
    await this.deps.accounts.update(row.id, { health, lastRefreshError: reason }, tx);
    await enqueueOutbox(tx, [
      createEnvelope(
        connectionRevoked,
        {
          account_id: row.id,
          provider: row.provider as Network,
          platform_account_id: row.platformAccountId,
          handle: row.handle,
          health,
          reason,
        },
        // The API request that found the connection lost, when there is one (not the background pass).
        { orgId: row.orgId, requestId: currentContext()?.requestId ?? null },
      ),
    ]);
    this.deps.logger.info({ account_id: row.id, health }, 'connection lost');
  }
}
