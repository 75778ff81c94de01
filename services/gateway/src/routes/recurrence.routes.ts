import { publisherRecurrenceCancel, publisherRecurrenceGet } from '@svc/contracts';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

/** Recurring posts, owned by the publisher with their occurrences. */
export function recurrenceRoutes(rpc: RpcCaller): Route[] {
  return [
    defineRoute(operations.getRecurrence, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(
        publisherRecurrenceGet,
        { recurrence_id: params.recurrence_id },
        { orgId: principal.orgId, requestId },
      ),
    })),
    defineRoute(operations.deleteRecurrence, async ({ params, principal, requestId }) => {
      await rpc(
        publisherRecurrenceCancel,
        { recurrence_id: params.recurrence_id },
        { orgId: principal.orgId, requestId },
      );
      return { status: 204 };
    }),
  ];
}
