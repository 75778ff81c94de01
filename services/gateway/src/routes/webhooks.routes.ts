import {
  webhooksCreate, webhooksDelete, webhooksDeliveriesList, webhooksDeliveryReplay, webhooksList, webhooksRotateSecret, webhooksTest, webhooksUpdate,
} from '@svc/contracts';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

/** The test delivery waits for the receiver (up to its 15 s timeout), longer than ordinary RPC. */
const TEST_DELIVERY_RPC_TIMEOUT_MS = 20_000;

/** `/v1/webhooks*` (dashboard JWT only): each route is one RPC to the webhook-dispatcher. */
export function webhookRoutes(rpc: RpcCaller): Route[] {
  return [
    defineRoute(operations.listWebhooks, async ({ principal, requestId }) => ({
      status: 200,
      body: (await rpc(webhooksList, {}, { orgId: principal.orgId, requestId })).items,
    })),

    defineRoute(operations.createWebhook, async ({ body, principal, requestId }) => ({
      status: 201,
      body: await rpc(webhooksCreate, body, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.updateWebhook, async ({ params, body, principal, requestId }) => ({
      status: 200,
      body: await rpc(webhooksUpdate, { webhook_id: params.webhook_id, ...body }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.deleteWebhook, async ({ params, principal, requestId }) => {
      await rpc(webhooksDelete, { webhook_id: params.webhook_id }, { orgId: principal.orgId, requestId });
      return { status: 204 };
    }),

    defineRoute(operations.testWebhook, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(webhooksTest, { webhook_id: params.webhook_id }, { orgId: principal.orgId, requestId, timeoutMs: TEST_DELIVERY_RPC_TIMEOUT_MS }),
    })),

    defineRoute(operations.rotateWebhookSecret, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(webhooksRotateSecret, { webhook_id: params.webhook_id }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.listWebhookDeliveries, async ({ params, query, principal, requestId }) => ({
      status: 200,
      body: await rpc(
        webhooksDeliveriesList,
        { webhook_id: params.webhook_id, limit: query.limit ?? 50, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) },
        { orgId: principal.orgId, requestId },
      ),
    })),

    defineRoute(operations.replayWebhookDelivery, async ({ params, principal, requestId }) => ({
      status: 202,
      body: await rpc(webhooksDeliveryReplay, { webhook_id: params.webhook_id, delivery_id: params.delivery_id }, { orgId: principal.orgId, requestId }),
    })),
  ];
}
