import { AppError } from './app-error.ts';

/**
 * PostgreSQL's SQLSTATEs that say the server cannot take a statement now, whatever the statement:
 * class 08 (connection exception), 53300 (too_many_connections), 57P01-57P03 (shutting down,
 * restarting after a crash, not accepting connections yet).
 */
const SQLSTATE_UNAVAILABLE = /^(08[0-9A-Z]{3}|53300|57P0[123])$/;
/** Node's socket errors, on connect or mid-statement. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** What Prisma's driver adapter calls the same (`meta.driverAdapterError.cause.kind`). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'TooManyConnections', 'SocketTimeout']);
/** node-postgres's own errors for a connection lost or never given, which carry no code. */
const PG_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect)/;

type Inspectable = {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
};

/** The error, its causes, and the cause Prisma's driver adapter keeps in `meta` (bounded: causes can loop). */
function* chain(error: unknown): Generator<Inspectable> {
  let current = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth += 1) {
    const item = current as Inspectable;
    yield item;
    const adapter = item.meta?.driverAdapterError?.cause;
    if (typeof adapter === 'object' && adapter !== null) yield adapter as Inspectable;
    current = item.cause;
  }
}

function isUnavailable(item: Inspectable): boolean {
  const codes = [item.code, item.originalCode].filter((code): code is string => typeof code === 'string');
  return (
    codes.some((code) => SQLSTATE_UNAVAILABLE.test(code) || SOCKET_CODES.has(code)) ||
    (typeof item.kind === 'string' && ADAPTER_KINDS.has(item.kind)) ||
    (typeof item.message === 'string' && PG_MESSAGES.test(item.message))
  );
}

/**
 * An unexpected error that only says a dependency is down or full (the database refused a
 * connection, a socket closed): 503 `service_unavailable`, which a retry can cure, rather than a 500
 * that says our code is wrong. Undefined for anything else. The cause is kept for the log, never shown.
 */
export function unavailableError(error: unknown): AppError | undefined {
  for (const item of chain(error)) {
    if (isUnavailable(item)) {
      return new AppError(
        'service_unavailable',
        'A database or service this request needs is not accepting connections right now; retry shortly.',
        { retryable: true, cause: error },
      );
    }
  }
  return undefined;
}
