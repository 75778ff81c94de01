import { context, propagation, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';

/** W3C trace context as it travels: `traceparent`, and `tracestate` when a vendor set one. */
export type TraceCarrier = Record<string, string>;

const FIELDS = ['traceparent', 'tracestate'] as const;

/**
 * The W3C headers of the span active now, or null when none is (tracing off, or outside any traced
 * work). Stored with an outbox row so the relay, later and in another loop, continues the same trace.
 */
export function activeTraceCarrier(): TraceCarrier | null {
  const active = context.active();
  if (trace.getSpan(active) === undefined) return null;
  return carrierOf(active);
}

/** The W3C headers of `ctx`'s span; null when it has none. */
export function carrierOf(ctx: Context): TraceCarrier | null {
  const carrier: TraceCarrier = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent === undefined ? null : carrier;
}

/**
 * The context a message's headers (AMQP headers, a stored outbox carrier) continue; the root context
 * when they carry none. Only the W3C fields are read: AMQP headers hold other values of any type.
 */
export function contextFromCarrier(headers: Readonly<Record<string, unknown>> | null | undefined): Context {
  if (headers === null || headers === undefined) return ROOT_CONTEXT;
  const carrier: TraceCarrier = {};
  for (const field of FIELDS) {
    const value = headers[field];
    if (typeof value === 'string') carrier[field] = value;
    else if (Buffer.isBuffer(value)) carrier[field] = value.toString('utf8');
  }
  if (carrier.traceparent === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier);
}
