// main.ts's first import: tracing starts (when OTEL_EXPORTER_OTLP_ENDPOINT is set) before express,
// pg and the rest are loaded, since the SDK patches those modules as they are required.
import { startServiceTracing } from '@svc/tracing';
import { loadServiceConfig } from './config.ts';

startServiceTracing('dashboard', () => loadServiceConfig());
