import { vaultFromConfig } from '@svc/crypto';
import type { Network } from '@svc/providers';
import { providersFromConfig, type Providers } from '@svc/providers';
import { startPruner, type ServiceRuntime, type WorkerWiring } from '@svc/runtime';
import type { Config } from './config.ts';
import { planChangedHandlers, planMessages } from './consumers/plan-changed.consumer.ts';
import { AccountsRepository } from './data/accounts.repository.ts';
import { OAuthAppsRepository } from './data/oauth-apps.repository.ts';
import { OAuthFlowsRepository } from './data/oauth-flows.repository.ts';
import { PlanLimitsRepository } from './data/plan-limits.repository.ts';
import { ConnectAccount } from './domain/connect-account.ts';
import { OAuthApps, type DefaultApp } from './domain/oauth-apps.ts';
import { OAuthFlow } from './domain/oauth-flow.ts';
import { TokenKeeper } from './domain/token-keeper.ts';
import { tokenRefreshMetric } from './domain/token-refresh-metric.ts';
import { TokenRefresher } from './domain/token-refresher.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { accountsRpc, accountsRpcHandlers } from './rpc/accounts.handlers.ts';

/** Expired flows are kept this long after expiry, for a look at what just failed, then deleted. */
const FLOW_PRUNE_GRACE_MS = 3600_000;

function defaultApps(config: Config): Partial<Record<Network, DefaultApp>> {
  const pairs: [Network, string | undefined, string | undefined][] = [
    ['instagram', config.INSTAGRAM_CLIENT_ID, config.INSTAGRAM_CLIENT_SECRET],
    ['facebook', config.FACEBOOK_CLIENT_ID, config.FACEBOOK_CLIENT_SECRET],
    ['x', config.X_CLIENT_ID, config.X_CLIENT_SECRET],
    ['linkedin', config.LINKEDIN_CLIENT_ID, config.LINKEDIN_CLIENT_SECRET],
    ['tiktok', config.TIKTOK_CLIENT_KEY, config.TIKTOK_CLIENT_SECRET],
  ];
  return Object.fromEntries(
    pairs
      .filter((pair): pair is [Network, string, string] => pair[1] !== undefined && pair[2] !== undefined)
      .map(([network, clientId, clientSecret]) => [network, { clientId, clientSecret }]),
  );
}

/** Builds the accounts service from its runtime: repositories, vault, adapters, use cases, RPC, refresher. */
export async function wire(
  runtime: ServiceRuntime<PrismaClient>,
  config: Config,
  providers?: Providers,
): Promise<WorkerWiring> {
  const { db, logger } = runtime;
  const vault = vaultFromConfig(config.VAULT_KEYS, config.VAULT_ACTIVE_KEY_ID);
  const adapters = providers ?? providersFromConfig(config, { logger, allowPrivateUrls: config.ALLOW_PRIVATE_URLS });
  const accounts = new AccountsRepository(db);
  const apps = new OAuthApps(new OAuthAppsRepository(db), vault, config.PUBLIC_BASE_URL, defaultApps(config));
  const limits = new PlanLimitsRepository(db, config.PLAN_FREE_CONNECTED_ACCOUNTS);
  const connect = new ConnectAccount(db, accounts, adapters, vault, limits);
  const keeper = new TokenKeeper({
    db,
    accounts,
    apps,
    providers: adapters,
    vault,
    logger,
    refreshAheadMs: config.TOKEN_REFRESH_AHEAD_MS,
    leaseMs: config.PROVIDER_TIMEOUT_MS * 2 + 5000,
    onRefresh: tokenRefreshMetric(runtime.metrics.registry),
  });
  const flow = new OAuthFlow({
    flows: new OAuthFlowsRepository(db),
    apps,
    providers: adapters,
    vault,
    connect,
    stateSecret: config.OAUTH_STATE_SECRET,
    stateTtlSeconds: config.OAUTH_STATE_TTL_SECONDS,
  });
  await runtime.broker.serveRpc({
    messages: accountsRpc,
    handlers: accountsRpcHandlers({ accounts, connect, apps, flow, keeper, limits }),
  });
  await runtime.broker.consume({
    queue: 'accounts.plans',
    messages: planMessages,
    handlers: planChangedHandlers(limits),
    prefetch: 10,
  });
  const refresher = new TokenRefresher({
    db,
    accounts,
    keeper,
    logger,
    intervalMs: config.TOKEN_REFRESH_INTERVAL_MS,
    aheadMs: config.TOKEN_REFRESH_AHEAD_MS,
    expiringWindowMs: config.TOKEN_EXPIRING_WINDOW_MS,
  });
  refresher.start();
  const flowPruner = startPruner({
    what: 'OAuth flows',
    intervalMs: config.OAUTH_FLOW_PRUNE_INTERVAL_MS,
    logger,
    prune: () => flow.prune(FLOW_PRUNE_GRACE_MS),
  });
  return { stop: async () => void (await Promise.all([refresher.stop(), flowPruner.stop()])) };
}
