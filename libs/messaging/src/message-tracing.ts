import type { Envelope } from '@svc/contracts';
import { ATTR, contextFromCarrier, context, inSpan, SpanKind, tracingEnabled, type TraceCarrier } from '@svc/tracing';

/** The attributes every message span carries: what it is, where it goes, whose request it serves. */
function messageAttributes(envelope: Envelope, operation: string, destination: string) {
  return {
    [ATTR.messagingSystem]: 'rabbitmq',
    [ATTR.operation]: operation,
    [ATTR.destination]: destination,
    [ATTR.routingKey]: envelope.type,
    [ATTR.messageId]: envelope.message_id,
    [ATTR.messageType]: envelope.type,
    ...(envelope.request_id === null ? {} : { [ATTR.requestId]: envelope.request_id }),
    ...(envelope.org_id === null ? {} : { [ATTR.orgId]: envelope.org_id }),
  };
}

/**
 * Publishes inside a producer span whose W3C headers `send` puts on the message. `stored`: the trace
 * context an outbox row kept from the work that wrote it (the relay publishes later, from no span of
 * that work), or null for a row written outside any trace (no span then: its consumer starts the
 * trace); absent, the active context continues. Tracing off: `send` runs with no headers and nothing
 * else happens.
 */
export function publishTraced(
  envelope: Envelope,
  destination: string,
  send: (headers: TraceCarrier) => Promise<void>,
  stored?: TraceCarrier | null,
): Promise<void> {
  if (!tracingEnabled() || stored === null) return send({});
  const relayed = stored !== undefined;
  return inSpan(
    {
      name: `${relayed ? 'outbox.relay' : 'publish'} ${envelope.type}`,
      kind: SpanKind.PRODUCER,
      parent: relayed ? contextFromCarrier(stored) : context.active(),
      attributes: { ...messageAttributes(envelope, 'publish', destination), [ATTR.outbox]: relayed },
    },
    send,
  );
}

/**
 * Runs a consumer's handler inside a consumer span continuing the trace of the message's headers (a
 * retry copy keeps the original's headers: each attempt is a sibling under the same producer span).
 */
export function consumeTraced<T>(
  envelope: Envelope,
  queue: string,
  headers: Readonly<Record<string, unknown>> | undefined,
  attempt: number,
  work: (failed: (error: unknown) => void) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work(() => undefined);
  return inSpan(
    {
      name: `process ${envelope.type}`,
      kind: SpanKind.CONSUMER,
      parent: contextFromCarrier(headers),
      attributes: { ...messageAttributes(envelope, 'process', queue), [ATTR.attempt]: attempt },
    },
    (_headers, failed) => work(failed),
  );
}

/**
 * Header of an RPC batch message: each request's trace context by its message id (the requests of
 * one batch come from different traces; the message itself can carry only one `traceparent`).
 */
export const BATCH_TRACE_HEADER = 'x-batch-trace';

/** An RPC call inside a client span; `call` sends the span's headers with the request. */
export function callTraced<T>(
  type: string,
  requestId: string | null,
  call: (headers: TraceCarrier) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return call({});
  return inSpan(
    {
      name: `rpc ${type}`,
      kind: SpanKind.CLIENT,
      parent: context.active(),
      attributes: {
        [ATTR.messagingSystem]: 'rabbitmq',
        [ATTR.rpcMethod]: type,
        ...(requestId === null ? {} : { [ATTR.requestId]: requestId }),
      },
    },
    call,
  );
}

/**
 * The trace context an RPC request continues: its own headers when it came alone, its entry in the
 * batch's `x-batch-trace` table when it came in a batch.
 */
export function rpcRequestTrace(
  headers: Readonly<Record<string, unknown>> | undefined,
  messageId: string,
  batched: boolean,
): Readonly<Record<string, unknown>> | undefined {
  if (!batched) return headers;
  const table = headers?.[BATCH_TRACE_HEADER];
  if (typeof table !== 'object' || table === null) return undefined;
  const entry = (table as Record<string, unknown>)[messageId];
  return typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : undefined;
}

/** An RPC handler inside a server span continuing the caller's trace. */
export function serveTraced<T>(
  envelope: Envelope,
  service: string,
  trace: Readonly<Record<string, unknown>> | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  return inSpan(
    {
      name: `rpc ${envelope.type}`,
      kind: SpanKind.SERVER,
      parent: contextFromCarrier(trace),
      attributes: { ...messageAttributes(envelope, 'process', service), [ATTR.rpcMethod]: envelope.type },
    },
    work,
  );
}
