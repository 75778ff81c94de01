import { context, trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';
import { redactValue } from './redact.ts';
import { currentContext } from './request-context.ts';

export interface LoggerOptions {
  service: string;
  level?: string;
  /** Tests pass a stream to read what was logged. */
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Every object logged passes through key-based redaction at any depth (redact.ts); error
      // objects under any key are reduced there too, so pino's own err serializer sees plain data.
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redactValue(object) as Record<string, unknown>,
      },
      mixin() {
        const request = currentContext();
        // With tracing off no span is ever active: one lookup in the root context, nothing added.
        const span = trace.getSpan(context.active())?.spanContext();
        const ids = span === undefined ? {} : { trace_id: span.traceId, span_id: span.spanId };
        if (!request) return ids;
        return {
          request_id: request.requestId,
          ...(request.orgId ? { org_id: request.orgId } : {}),
          ...(request.apiKeyId ? { api_key_id: request.apiKeyId } : {}),
          ...ids,
        };
      },
    },
    options.destination,
  );
}

export type { Logger };
