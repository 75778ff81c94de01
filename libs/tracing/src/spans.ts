import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import { carrierOf, type TraceCarrier } from './trace-context.ts';

/** Attribute names shared by every service's spans (docs/operations.md, "Tracing"). */
export const ATTR = {
  requestId: 'request.id',
  orgId: 'org.id',
  messagingSystem: 'messaging.system',
  operation: 'messaging.operation.type',
  destination: 'messaging.destination.name',
  routingKey: 'messaging.rabbitmq.destination.routing_key',
  messageId: 'messaging.message.id',
  messageType: 'messaging.message.type',
  attempt: 'messaging.delivery.attempt',
  outbox: 'messaging.outbox',
  rpcMethod: 'rpc.method',
} as const;

const TRACER_NAME = '@svc/tracing';

export interface SpanSpec {
  name: string;
  kind: SpanKind;
  /** The context the span continues (a message's headers, a stored outbox carrier, or the active one). */
  parent: Context;
  attributes: Attributes;
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Runs `work` in a span (active while it runs, so log lines and the calls it makes carry it), given
 * the span's W3C headers to send along and a way to mark a failure it handled itself; ends the span
 * however `work` ends, marking a throw as a failure.
 */
export async function inSpan<T>(
  spec: SpanSpec,
  work: (carrier: TraceCarrier, failed: (error: unknown) => void) => Promise<T>,
): Promise<T> {
  const span = trace
    .getTracer(TRACER_NAME)
    .startSpan(spec.name, { kind: spec.kind, attributes: spec.attributes }, spec.parent);
  const active = trace.setSpan(spec.parent, span);
  try {
    return await context.with(active, () => work(carrierOf(active) ?? {}, (error) => failed(span, error)));
  } catch (error) {
    failed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Adds attributes to the span active now (the HTTP server span of a request); nothing when none is. */
export function tagActiveSpan(attributes: Attributes): void {
  trace.getSpan(context.active())?.setAttributes(attributes);
}

export { SpanKind };
