import { AppError } from '@svc/errors';
import { publisherQueueGet, publisherQueueSet, type Envelope, type RpcHandlers } from '@svc/contracts';
import { getQueue, setQueue, type QueueSettingsDeps } from '../domain/queue-settings.ts';

export const queueRpc = [publisherQueueSet, publisherQueueGet] as const;

function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

export function queueRpcHandlers(deps: QueueSettingsDeps): RpcHandlers<typeof queueRpc> {
  return {
    'publisher.queue_set.v1': (env) => setQueue(deps, orgOf(env), env.payload),
    'publisher.queue_get.v1': (env) => getQueue(deps, orgOf(env)),
  };
}
