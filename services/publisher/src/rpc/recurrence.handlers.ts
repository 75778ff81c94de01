import { AppError } from '@svc/errors';
import { publisherRecurrenceCancel, publisherRecurrenceGet, type Envelope, type RpcHandlers } from '@svc/contracts';
import type { CancelJobDeps } from '../domain/cancel-job.ts';
import { cancelRecurrence, getRecurrence } from '../domain/recurrence-settings.ts';

export const recurrenceRpc = [publisherRecurrenceGet, publisherRecurrenceCancel] as const;

function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

export function recurrenceRpcHandlers(deps: CancelJobDeps): RpcHandlers<typeof recurrenceRpc> {
  return {
    'publisher.recurrence_get.v1': (env) => getRecurrence(deps.db, orgOf(env), env.payload.recurrence_id),
    'publisher.recurrence_cancel.v1': (env) => cancelRecurrence(deps, orgOf(env), env.payload.recurrence_id),
  };
}
