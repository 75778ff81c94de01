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
        const context = currentContext();
        if (!context) return {};
        return {
          request_id: context.requestId,
          ...(context.orgId ? { org_id: context.orgId } : {}),
          ...(context.apiKeyId ? { api_key_id: context.apiKeyId } : {}),
        };
      },
    },
    options.destination,
  );
}

export type { Logger };
