import {
  accountsConnect,
  accountsDelete,
  accountsList,
  accountsLookup,
  accountsRulesGet,
  accountsRefresh,
  accountsSummary,
  accountsUsage,
  credentialsGet,
  oauthAppsCreate,
  oauthAppsList,
  oauthComplete,
  oauthStart,
  type Envelope,
  type RpcHandlers,
} from '@svc/contracts';
import { AppError, notFound } from '@svc/errors';
import { ruleExtrasOf, type AccountExtras } from '@svc/providers';
import type { AccountsRepository } from '../data/accounts.repository.ts';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';
import { isUuid, toAccountView } from '../domain/account-view.ts';
import type { ConnectAccount } from '../domain/connect-account.ts';
import { listAccounts } from '../domain/list-accounts.ts';
import type { OAuthApps } from '../domain/oauth-apps.ts';
import type { OAuthFlow } from '../domain/oauth-flow.ts';
import type { TokenKeeper } from '../domain/token-keeper.ts';

export const accountsRpc = [
  accountsList,
  accountsConnect,
  accountsDelete,
  accountsRefresh,
  oauthStart,
  oauthComplete,
  oauthAppsList,
  oauthAppsCreate,
  credentialsGet,
  accountsLookup,
  accountsRulesGet,
  accountsSummary,
  accountsUsage,
] as const;

export interface AccountsRpcDeps {
  accounts: AccountsRepository;
  connect: ConnectAccount;
  apps: OAuthApps;
  flow: OAuthFlow;
  keeper: TokenKeeper;
  limits: PlanLimitsRepository;
}

/** Tenant-scoped requests carry the organization in the envelope; without one there is nothing to scope. */
function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

export function accountsRpcHandlers(deps: AccountsRpcDeps): RpcHandlers<typeof accountsRpc> {
  return {
    'accounts.list.v1': (env) => listAccounts(deps.accounts, { orgId: orgOf(env), ...env.payload }),

    'accounts.connect.v1': async (env) => {
      const { credentials, provider } = env.payload;
      const extras: AccountExtras = {};
      for (const key of ['page_id', 'ig_user_id', 'author_urn'] as const)
        if (credentials[key] !== undefined) extras[key] = credentials[key];
      const { account } = await deps.connect.connect({
        orgId: orgOf(env),
        provider,
        connectionType: 'byok',
        tokens: {
          accessToken: credentials.access_token,
          ...(credentials.refresh_token === undefined ? {} : { refreshToken: credentials.refresh_token }),
          ...(credentials.expires_at === undefined ? {} : { expiresAt: new Date(credentials.expires_at) }),
        },
        extras,
        oauthAppId: null,
        expectedPlatformAccountId: env.payload.platform_account_id,
        handle: env.payload.handle,
      });
      return toAccountView(account);
    },

    'accounts.delete.v1': async (env) => {
      const id = env.payload.account_id;
      if (!isUuid(id) || !(await deps.accounts.delete(orgOf(env), id))) throw notFound(`The account ${id}`);
      return {};
    },

    'accounts.refresh.v1': async (env) => {
      const row = await deps.keeper.refresh(orgOf(env), env.payload.account_id, true);
      const view = toAccountView(row);
      return { id: view.id, health: view.health, token_expires_at: view.token_expires_at };
    },

    'accounts.oauth_start.v1': (env) =>
      deps.flow.start(orgOf(env), env.payload.provider, env.payload.oauth_app_id, env.payload.author_type),
    'accounts.oauth_complete.v1': (env) => deps.flow.complete(env.payload),
    'accounts.oauth_apps_list.v1': async (env) => ({ items: await deps.apps.list(orgOf(env), env.payload.provider) }),
    'accounts.oauth_apps_create.v1': (env) => deps.apps.create(orgOf(env), env.payload),

    'accounts.credentials_get.v1': async (env) => {
      const orgId = orgOf(env);
      const id = env.payload.account_id;
      let row = isUuid(id) ? await deps.accounts.find(orgId, id) : null;
      if (row === null) throw notFound(`The account ${id}`);
      deps.keeper.assertUsable(row);
      if (env.payload.force_refresh === true || deps.keeper.dueSoon(row))
        row = await deps.keeper.refresh(orgId, id, env.payload.force_refresh === true);
      return {
        account_id: row.id,
        provider: toAccountView(row).provider,
        access_token: deps.keeper.accessToken(row),
        extras: Object.fromEntries(
          Object.entries(row.extras as Record<string, unknown>).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string',
          ),
        ),
        token_expires_at: row.tokenExpiresAt?.toISOString() ?? null,
      };
    },

    'accounts.summary.v1': (env) => deps.accounts.summary(orgOf(env)),

    'accounts.usage.v1': async (env) => {
      const { used, limit } = await deps.limits.usage(orgOf(env));
      return { used, limit };
    },

    'accounts.rules_get.v1': async (env) => {
      const id = env.payload.account_id;
      const row = isUuid(id) ? await deps.accounts.find(orgOf(env), id) : null;
      if (row === null) throw notFound(`The account ${id}`);
      return {
        id: row.id,
        provider: toAccountView(row).provider,
        rule_extras: ruleExtrasOf(row.extras as Record<string, unknown> | null),
        scopes: row.scopes,
      };
    },

    'accounts.lookup.v1': async (env) => {
      const ids = env.payload.account_ids.filter(isUuid);
      const rows = ids.length === 0 ? [] : await deps.accounts.findMany(orgOf(env), ids);
      return {
        items: rows.map((row) => {
          const view = toAccountView(row);
          return {
            id: view.id,
            provider: view.provider,
            health: view.health,
            handle: view.handle,
            rule_extras: ruleExtrasOf(row.extras as Record<string, unknown> | null),
          };
        }),
      };
    },
  };
}
