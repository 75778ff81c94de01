import { pino, type DestinationStream, type Logger } from 'pino';
import { currentContext } from './request-context.ts';

/**
 * Paths whose values never reach a log line. Keys are matched at any of the first few depths because
 * secrets arrive nested (request headers, provider responses, message payloads).
 */
const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'cookie',
  'password',
  'secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'signing_secret',
  'api_key',
  'apiKey',
  'key',
  'code_verifier',
  'JWT_SECRET',
  'API_KEY_PEPPER',
];
const REDACT_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]).concat([
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
]);

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
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const context = currentContext();
        if (!context) return {};
        return context.orgId ? { request_id: context.requestId, org_id: context.orgId } : { request_id: context.requestId };
      },
    },
    options.destination,
  );
}

export type { Logger };
