import {
  webhooksCreate,
  webhooksDelete,
  webhooksDeliveriesList,
  webhooksDeliveryReplay,
  webhooksList,
  webhooksRotateSecret,
  webhooksTest,
  webhooksUpdate,
  type Envelope,
  type RpcHandlers,
} from '@svc/contracts';
import { AppError, notFound } from '@svc/errors';
import type { DeliveriesRepository } from '../data/deliveries.repository.ts';
import type { EndpointsRepository } from '../data/endpoints.repository.ts';
import type { AttemptCommands } from '../domain/attempt-commands.ts';
import { createEndpoint } from '../domain/create-endpoint.ts';
import type { UrlRules } from '../domain/endpoint-url.ts';
import { listDeliveries } from '../domain/list-deliveries.ts';
import { replayDelivery } from '../domain/replay-delivery.ts';
import { rotateSecret } from '../domain/rotate-secret.ts';
import type { SecretBox } from '../domain/secrets.ts';
import { testEndpoint, type TestEndpointDeps } from '../domain/test-endpoint.ts';
import { updateEndpoint } from '../domain/update-endpoint.ts';
import { toEndpointView } from '../domain/views.ts';

/** The gateway's `/v1/webhooks*` calls, on the dispatcher's RPC queue. */
export const webhooksRpc = [
  webhooksList,
  webhooksCreate,
  webhooksUpdate,
  webhooksDelete,
  webhooksRotateSecret,
  webhooksDeliveriesList,
  webhooksDeliveryReplay,
] as const;

/**
 * Test sends, on their own lane (`Broker.serveRpc` with `lane: 'tests'`): each waits on a receiver for
 * up to the test timeout, holding a prefetch slot of that lane only.
 */
export const TESTS_LANE = 'tests';
export const webhooksTestRpc = [webhooksTest] as const;

export interface WebhooksRpcDeps {
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  secrets: SecretBox;
  commands: AttemptCommands;
  urlRules: UrlRules;
  maxEndpointsPerOrg: number;
  secretOverlapMs: number;
  replayWindowMs: number;
  attemptsListed: number;
}

function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

export function webhooksRpcHandlers(deps: WebhooksRpcDeps): RpcHandlers<typeof webhooksRpc> {
  const endpointDeps = {
    endpoints: deps.endpoints,
    secrets: deps.secrets,
    urlRules: deps.urlRules,
    maxEndpointsPerOrg: deps.maxEndpointsPerOrg,
  };
  return {
    'webhooks.list.v1': async (env) => ({ items: (await deps.endpoints.list(orgOf(env))).map(toEndpointView) }),
    'webhooks.create.v1': (env) =>
      createEndpoint(endpointDeps, {
        orgId: orgOf(env),
        url: env.payload.url,
        events: env.payload.events,
        payloadFormat: env.payload.payload_format ?? 'envelope',
      }),
    'webhooks.update.v1': (env) =>
      updateEndpoint(endpointDeps, {
        orgId: orgOf(env),
        id: env.payload.webhook_id,
        url: env.payload.url,
        events: env.payload.events,
        active: env.payload.active,
      }),
    'webhooks.delete.v1': async (env) => {
      if (!(await deps.endpoints.delete(orgOf(env), env.payload.webhook_id))) throw notFound('The webhook endpoint');
      return {};
    },
    'webhooks.rotate_secret.v1': (env) =>
      rotateSecret(
        { ...endpointDeps, overlapMs: deps.secretOverlapMs },
        { orgId: orgOf(env), id: env.payload.webhook_id },
      ),
    'webhooks.deliveries_list.v1': (env) =>
      listDeliveries(deps, {
        orgId: orgOf(env),
        endpointId: env.payload.webhook_id,
        limit: env.payload.limit,
        cursor: env.payload.cursor,
      }),
    'webhooks.delivery_replay.v1': (env) =>
      replayDelivery(
        { ...deps, windowMs: deps.replayWindowMs },
        { orgId: orgOf(env), endpointId: env.payload.webhook_id, deliveryId: env.payload.delivery_id },
      ),
  };
}

export function webhooksTestRpcHandlers(deps: TestEndpointDeps): RpcHandlers<typeof webhooksTestRpc> {
  return {
    'webhooks.test.v1': (env) => testEndpoint(deps, { orgId: orgOf(env), endpointId: env.payload.webhook_id }),
  };
}
