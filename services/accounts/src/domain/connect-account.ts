import { randomUUID } from 'node:crypto';
import type { Vault } from '@svc/crypto';
import { AppError } from '@svc/errors';
import type { AccountExtras, Network, Profile, Providers, TokenSet } from '@svc/providers';
import type { AccountRow, AccountsRepository } from '../data/accounts.repository.ts';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { takeAccountSlot } from './account-quota.ts';
import { sealedFor } from './account-view.ts';
import { credentialRejection } from './provider-failure.ts';

export interface ConnectInput {
  orgId: string;
  provider: Network;
  connectionType: 'oauth' | 'byok';
  tokens: TokenSet;
  extras: AccountExtras;
  oauthAppId: string | null;
  /** BYOK: the account the caller says these credentials act for; checked against the network. */
  expectedPlatformAccountId?: string;
  handle?: string | undefined;
}

/** The URN prefixes a network may put before an account id; nothing else is ever stripped. */
const KNOWN_URN_PREFIX = /^urn:li:(?:person|member|organization):/;

/**
 * Ids may come back bare or as LinkedIn URNs (`urn:li:person:abc`); either spelling names the same
 * account. Compared exactly after removing only a known prefix: a suffix match once let
 * `spoofed:<real id>` through and stored the network account under an id the caller chose.
 */
export function sameAccount(a: string, b: string): boolean {
  return a.replace(KNOWN_URN_PREFIX, '') === b.replace(KNOWN_URN_PREFIX, '');
}

/**
 * Connects or reconnects an account: the token is checked against the network first (profile
 * lookup), and nothing is stored unless it works. The same network account again is the same
 * account, with fresh tokens and `health: active`. A new account takes one of the plan's connected-
 * account slots (402 plan_limit_reached when none is left); a reconnect does not.
 */
export class ConnectAccount {
  constructor(
    private readonly db: PrismaClient,
    private readonly accounts: AccountsRepository,
    private readonly providers: Providers,
    private readonly vault: Vault,
    private readonly limits: PlanLimitsRepository,
  ) {}

  async connect(input: ConnectInput): Promise<{ account: AccountRow; reconnected: boolean }> {
    let profile: Profile;
    try {
      profile = await this.providers[input.provider].profile.fetch({
        accessToken: input.tokens.accessToken,
        extras: input.extras,
      });
    } catch (error) {
      throw credentialRejection(error, 'the access token');
    }
    if (
      input.expectedPlatformAccountId !== undefined &&
      !sameAccount(profile.platformAccountId, input.expectedPlatformAccountId)
    ) {
      throw new AppError(
        'validation_error',
        `These credentials act for ${input.provider} account ${profile.platformAccountId}, not ${input.expectedPlatformAccountId}.`,
        {
          details: [
            { path: '/body/platform_account_id', message: `the token belongs to ${profile.platformAccountId}` },
          ],
        },
      );
    }
    // Always the network's own spelling: one network account is one row, whatever the caller typed.
    const platformAccountId = profile.platformAccountId;
    // The network's own token for this account (a Facebook Page token): stored instead of the user's,
    // it does not expire and has no refresh token.
    if (profile.accessToken !== undefined && profile.accessToken !== input.tokens.accessToken) {
      input = {
        ...input,
        tokens: { accessToken: profile.accessToken, ...(input.tokens.scopes ? { scopes: input.tokens.scopes } : {}) },
      };
    }
    try {
      return await this.store(input, profile, platformAccountId);
    } catch (error) {
      // Two connects of one network account raced and the other created the row first: update it.
      if ((error as { code?: string }).code !== 'P2002') throw error;
      return this.store(input, profile, platformAccountId);
    }
  }

  private store(
    input: ConnectInput,
    profile: Profile,
    platformAccountId: string,
  ): Promise<{ account: AccountRow; reconnected: boolean }> {
    return this.db.$transaction(async (tx) => {
      await this.limits.lock(input.orgId, tx);
      const existing = await this.accounts.findByPlatformId(input.orgId, input.provider, platformAccountId, tx);
      if (existing === null) await takeAccountSlot(this.limits, input.orgId, tx);
      const id = existing?.id ?? randomUUID();
      const data = {
        handle: input.handle ?? profile.handle,
        displayName: profile.displayName ?? null,
        connectionType: input.connectionType,
        health: 'active',
        extras: { ...input.extras, ...profile.extras },
        scopes: input.tokens.scopes ?? [],
        accessToken: this.vault.encrypt(input.tokens.accessToken, sealedFor.accessToken(input.orgId, id)),
        refreshToken:
          input.tokens.refreshToken === undefined
            ? null
            : this.vault.encrypt(input.tokens.refreshToken, sealedFor.refreshToken(input.orgId, id)),
        tokenExpiresAt: input.tokens.expiresAt ?? null,
        refreshExpiresAt: input.tokens.refreshExpiresAt ?? null,
        oauthAppId: input.oauthAppId,
        lastRefreshedAt: new Date(),
        lastRefreshError: null,
      };
      if (existing !== null) return { account: await this.accounts.update(id, data, tx), reconnected: true };
      return {
        account: await this.accounts.create(
          { id, orgId: input.orgId, provider: input.provider, platformAccountId, ...data },
          tx,
        ),
        reconnected: false,
      };
    });
  }
}
