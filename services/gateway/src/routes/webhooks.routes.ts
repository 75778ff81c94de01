import { AppError, isAppError } from '@svc/errors';
import {
  webhooksCreate,
  webhooksDelete,
  webhooksDeliveriesList,
  webhooksDeliveryReplay,
  webhooksList,
  webhooksRotateSecret,
  webhooksTest,
  webhooksUpdate,
} from '@svc/contracts';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

/**
 * The test delivery waits for the receiver (up to its 5 s timeout, after at most a second for a slot
 * of a busy endpoint), longer than ordinary RPC.
 */
const TEST_DELIVERY_RPC_TIMEOUT_MS = 15_000;

/**
 * An error body crossing RPC keeps its code and details but not its headers: the dispatcher's 429
 * names its wait in `details[].retry_after_seconds`, which becomes `Retry-After` here.
 */
function withRetryAfter(error: unknown): unknown {
  if (!isAppError(error) || error.code !== 'rate_limited') return error;
  const seconds = error.details
    ?.map((detail) => detail.retry_after_seconds)
    .find((value): value is number => typeof value === 'number');
  if (seconds === undefined) return error;
  return new AppError('rate_limited', error.message, {
    details: error.details ?? [],
    headers: { 'Retry-After': String(seconds) },
  });
}

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
      body: await rpc(
        webhooksUpdate,
        { webhook_id: params.webhook_id, ...body },
        { orgId: principal.orgId, requestId },
      ),
    })),

    defineRoute(operations.deleteWebhook, async ({ params, principal, requestId }) => {
      await rpc(webhooksDelete, { webhook_id: params.webhook_id }, { orgId: principal.orgId, requestId });
      return { status: 204 };
    }),

    defineRoute(operations.testWebhook, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(
        webhooksTest,
        { webhook_id: params.webhook_id },
        { orgId: principal.orgId, requestId, timeoutMs: TEST_DELIVERY_RPC_TIMEOUT_MS },
      ).catch((error: unknown) => {
        throw withRetryAfter(error);
      }),
    })),

    defineRoute(operations.rotateWebhookSecret, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(webhooksRotateSecret, { webhook_id: params.webhook_id }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.listWebhookDeliveries, async ({ params, query, principal, requestId }) => ({
      status: 200,
      body: await rpc(
        webhooksDeliveriesList,
        {
          webhook_id: params.webhook_id,
          limit: query.limit ?? 50,
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        },
        { orgId: principal.orgId, requestId },
      ),
    })),

    defineRoute(operations.replayWebhookDelivery, async ({ params, principal, requestId }) => ({
      status: 202,
      body: await rpc(
        webhooksDeliveryReplay,
        { webhook_id: params.webhook_id, delivery_id: params.delivery_id },
        { orgId: principal.orgId, requestId },
      ),
    })),
  ];
}
