export { activeTraceCarrier, carrierOf, contextFromCarrier, type TraceCarrier } from './trace-context.ts';
export { ATTR, inSpan, SpanKind, tagActiveSpan, type SpanSpec } from './spans.ts';
export { startServiceTracing, startTracing, type TracingConfig } from './start-tracing.ts';
export { stopTracing, tracingEnabled } from './tracing-state.ts';
export { context } from '@opentelemetry/api';
