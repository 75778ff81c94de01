import { createLogger, type Logger } from '@svc/logger';
import { setTracingEnabled } from './tracing-state.ts';

import type * as Core from '@opentelemetry/core';
import type * as Exporter from '@opentelemetry/exporter-trace-otlp-http';
import type * as Instrumentation from '@opentelemetry/instrumentation';
import type * as Express from '@opentelemetry/instrumentation-express';
import type * as Http from '@opentelemetry/instrumentation-http';
import type * as Pg from '@opentelemetry/instrumentation-pg';
import type * as Undici from '@opentelemetry/instrumentation-undici';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkNode from '@opentelemetry/sdk-trace-node';

/** The settings of tracing (commonConfigSchema in @svc/config, read by each service's config.ts). */
export interface TracingConfig {
  /** OTLP/HTTP base URL (`/v1/traces` is appended); empty: tracing is off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: string;
  /** Empty: the service's own name. */
  OTEL_SERVICE_NAME: string;
  /** Share of new traces kept (0..1); a trace begun upstream follows its parent's decision. */
  OTEL_TRACES_SAMPLE_RATIO: number;
}

/** Probes and scrapes are polled every few seconds: spans of them would bury the traces that matter. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics', '/health', '/ready']);

/** How long finished spans wait before a batch leaves (the SDK's default is 5 s). */
const EXPORT_DELAY_MS = 1000;

/* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only when tracing is on:
   a process without an endpoint holds none of it, and it must be loaded synchronously, before the
   modules it patches (http, express, pg) are. */
function loadSdk() {
  return {
    node: require('@opentelemetry/sdk-trace-node') as typeof SdkNode,
    exporter: require('@opentelemetry/exporter-trace-otlp-http') as typeof Exporter,
    resources: require('@opentelemetry/resources') as typeof Resources,
    core: require('@opentelemetry/core') as typeof Core,
    instrumentation: require('@opentelemetry/instrumentation') as typeof Instrumentation,
    http: require('@opentelemetry/instrumentation-http') as typeof Http,
    express: require('@opentelemetry/instrumentation-express') as typeof Express,
    pg: require('@opentelemetry/instrumentation-pg') as typeof Pg,
    undici: require('@opentelemetry/instrumentation-undici') as typeof Undici,
  };
}
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Starts the OpenTelemetry SDK when an OTLP endpoint is configured: spans of incoming and outgoing
 * HTTP (node:http, fetch/undici), Express routes and pg queries, exported as OTLP/HTTP JSON in
 * batches, with W3C trace context propagation. Without an endpoint nothing is loaded or registered.
 * Call it before the service loads express or pg (each service's src/instrument.ts, main.ts's first
 * import): the instrumentations patch those modules as they are required.
 */
export function startTracing(service: string, config: TracingConfig, logger: Logger): boolean {
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '');
  if (endpoint === '') return false;
  const sdk = loadSdk();
  const { ParentBasedSampler, TraceIdRatioBasedSampler, BatchSpanProcessor, NodeTracerProvider } = sdk.node;
  sdk.core.setGlobalErrorHandler((error) => logger.warn({ err: error }, 'trace export failed'));
  const provider = new NodeTracerProvider({
    resource: sdk.resources.resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME || service }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLE_RATIO) }),
    spanProcessors: [
      new BatchSpanProcessor(new sdk.exporter.OTLPTraceExporter({ url: `${endpoint}/v1/traces` }), {
        scheduledDelayMillis: EXPORT_DELAY_MS,
      }),
    ],
  });
  provider.register();
  sdk.instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new sdk.http.HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        // A call made outside any traced work (a poll, a timer) would start a trace of its own.
        requireParentforOutgoingSpans: true,
      }),
      new sdk.express.ExpressInstrumentation({ ignoreLayersType: [sdk.express.ExpressLayerType.MIDDLEWARE] }),
      // The relay's claim and the sweepers run every second outside any request: no trace of their own.
      new sdk.pg.PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new sdk.undici.UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  // node:http is usually loaded before this runs (by the logger's and config's imports); requiring it
  // again lets the hook patch the one shared module object every earlier importer holds.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  require('node:http');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  require('node:https');
  setTracingEnabled(() =>
    provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'trace export at shutdown failed')),
  );
  logger.info({ endpoint, service_name: config.OTEL_SERVICE_NAME || service }, 'tracing on: exporting OTLP/HTTP');
  return true;
}

/**
 * A service's tracing, started from its own config before anything else loads (src/instrument.ts).
 * A configuration that does not load starts nothing here: main.ts's exitOnConfigError then reports
 * every problem and exits.
 */
export function startServiceTracing(service: string, loadConfig: () => TracingConfig & { LOG_LEVEL: string }): boolean {
  let config: TracingConfig & { LOG_LEVEL: string };
  try {
    config = loadConfig();
  } catch {
    return false;
  }
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT === '') return false;
  return startTracing(
    service,
    config,
    createLogger({ service, level: config.LOG_LEVEL }).child({ component: 'tracing' }),
  );
}
