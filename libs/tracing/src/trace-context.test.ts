import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { activeTraceCarrier, carrierOf, contextFromCarrier } from './trace-context.ts';
import { ATTR, inSpan, SpanKind } from './spans.ts';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('with no SDK registered (tracing off)', () => {
  it('finds no active span and injects nothing', () => {
    expect(activeTraceCarrier()).toBeNull();
    expect(carrierOf(context.active())).toBeNull();
  });
});

describe('W3C trace context in message headers', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  it('injects the active span as traceparent, and nothing outside a span', () => {
    expect(activeTraceCarrier()).toBeNull();
    const span = trace.getTracer('test').startSpan('work');
    const carrier = context.with(trace.setSpan(context.active(), span), () => activeTraceCarrier());
    span.end();
    const { traceId, spanId } = span.spanContext();
    expect(carrier).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
  });

  it('extracts traceparent and tracestate from AMQP headers, strings or buffers, among other headers', () => {
    for (const value of [TRACEPARENT, Buffer.from(TRACEPARENT)]) {
      const extracted = contextFromCarrier({
        'x-request-id': 'req-1',
        'x-retry-count': 2,
        traceparent: value,
        tracestate: 'vendor=1',
      });
      const remote = trace.getSpanContext(extracted);
      expect(remote).toMatchObject({
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        isRemote: true,
      });
      expect(remote?.traceState?.get('vendor')).toBe('1');
    }
  });

  it('gives the root context for headers with no, or a malformed, traceparent', () => {
    expect(contextFromCarrier(undefined)).toBe(ROOT_CONTEXT);
    expect(contextFromCarrier({ 'x-request-id': 'req-1' })).toBe(ROOT_CONTEXT);
    expect(trace.getSpanContext(contextFromCarrier({ traceparent: 'not-a-traceparent' }))).toBeUndefined();
    expect(trace.getSpanContext(contextFromCarrier({ traceparent: 42 }))).toBeUndefined();
  });

  it('a consumer span continues the trace the headers carry, and hands on its own context', async () => {
    const carrier = await inSpan(
      {
        name: 'process test.v1',
        kind: SpanKind.CONSUMER,
        parent: contextFromCarrier({ traceparent: TRACEPARENT }),
        attributes: { [ATTR.requestId]: 'req-1' },
      },
      async (headers) => {
        expect(activeTraceCarrier()).toEqual(headers);
        return headers;
      },
    );
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(span?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span?.attributes[ATTR.requestId]).toBe('req-1');
    expect(carrier.traceparent).toBe(`00-4bf92f3577b34da6a3ce929d0e0e4736-${span?.spanContext().spanId}-01`);
  });

  it('marks a span failed when its work throws or reports a handled failure, and ends it either way', async () => {
    const spec = { name: 'publish test.v1', kind: SpanKind.PRODUCER, parent: ROOT_CONTEXT, attributes: {} };
    await expect(inSpan(spec, () => Promise.reject(new Error('nacked')))).rejects.toThrow('nacked');
    await inSpan(spec, async (_headers, failed) => failed(new Error('retried later')));
    await inSpan(spec, async () => undefined);
    expect(exporter.getFinishedSpans().map((span) => [span.status.code, span.status.message])).toEqual([
      [2, 'nacked'],
      [2, 'retried later'],
      [0, undefined],
    ]);
  });
});
