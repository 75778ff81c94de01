import { accountsSummary, publisherStats } from '@svc/contracts';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { NETWORKS } from '../openapi/common.schemas.ts';
import { operations } from '../openapi/operations.ts';

/**
 * Dashboard overview (docs/api-conventions.md, "Dashboard stats"): the publisher counts posts this
 * month, the queue (jobs queued or processing) and the success rate of target deliveries finished
 * this month; accounts counts the networks with a usable connected account.
 */
export function statsRoutes(rpc: RpcCaller): Route[] {
  return [
    defineRoute(operations.getStats, async ({ principal, requestId }) => {
      const context = { orgId: principal.orgId, requestId };
      const [publishing, accounts] = await Promise.all([
        rpc(publisherStats, {}, context),
        rpc(accountsSummary, {}, context),
      ]);
      return {
        status: 200,
        body: {
          posts_this_month: publishing.posts_this_month,
          connected_networks: accounts.connected_networks,
          total_networks: NETWORKS.length,
          queue_processing: publishing.queue_processing,
          success_rate: publishing.success_rate,
        },
      };
    }),
  ];
}
