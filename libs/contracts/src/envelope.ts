import { newId } from './ids.ts';
import type { MessageDefinition, PayloadOf } from './message-definition.ts';
import { assertPayload } from './validation.ts';

/** The one envelope every message travels in (STYLE convention 3). */
export type Envelope<P = unknown> = {
  message_id: string;
  type: string;
  occurred_at: string;
  request_id: string | null;
  org_id: string | null;
  payload: P;
};

export interface EnvelopeContext {
  orgId: string | null;
  requestId: string | null;
  /** Set it to the outbox row id so a re-published row keeps its identity and consumers dedupe on it. */
  messageId?: string | undefined;
}

/** Validates the payload first: a message that fails its own contract never leaves the process. */
export function createEnvelope<D extends MessageDefinition>(
  def: D,
  payload: PayloadOf<D>,
  context: EnvelopeContext,
): Envelope<PayloadOf<D>> {
  assertPayload(def, payload);
  return {
    message_id: context.messageId ?? newId(),
    type: def.type,
    occurred_at: new Date().toISOString(),
    request_id: context.requestId,
    org_id: context.orgId,
    payload,
  };
}
