import { registerCounter, type ServiceMetrics } from '@svc/runtime';

/** How a token refresh (or, with nothing to refresh with, a token check) ended. */
export type RefreshOutcome = 'refreshed' | 'transient_failure' | 'connection_lost';

/**
 * Token refreshes by network and outcome: failures rising for one network usually mean its token
 * endpoint is down or the app's credentials changed (docs/operations.md, runbook "TokenRefreshFailures").
 */
export function tokenRefreshMetric(
  registry: ServiceMetrics['registry'],
): (provider: string, outcome: RefreshOutcome) => void {
  const inc = registerCounter(registry, {
    name: 'svc_token_refresh_total',
    help: 'Token refreshes by provider and outcome (refreshed, transient_failure, connection_lost).',
    labelNames: ['provider', 'outcome'],
  });
  return (provider, outcome) => inc({ provider, outcome });
}
