import { publisherQueueGet, publisherQueueSet } from '@svc/contracts';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

/** The organization's posting queue, owned by the publisher with the slots posts take from it. */
export function queueRoutes(rpc: RpcCaller): Route[] {
  return [
    defineRoute(operations.setQueue, async ({ body, principal, requestId }) => ({
      status: 200,
      body: await rpc(publisherQueueSet, body, { orgId: principal.orgId, requestId }),
    })),
    defineRoute(operations.getQueue, async ({ principal, requestId }) => ({
      status: 200,
      body: await rpc(publisherQueueGet, {}, { orgId: principal.orgId, requestId }),
    })),
  ];
}
