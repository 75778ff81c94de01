import { SvcApiError, SvcNetworkError } from '@svc/sdk';
import { EXIT, OutcomeError, UsageError, type ExitCode } from './errors.ts';
import type { CliIo } from './io.ts';

interface Detail {
  path?: string;
  message?: string;
  rule?: string;
  account_id?: string | null;
}

/**
 * Prints what went wrong and chooses the exit status: an API error (1) as its message, code and
 * request id with one line per detail; a transport failure (3) naming the address; bad input (2) as
 * one line. With `--json`, API errors are the API's own error body on stderr. Never a stack trace,
 * unless SVC_DEBUG is set.
 */
export function reportError(error: unknown, io: CliIo, json: boolean): ExitCode {
  const line = (text: string) => io.stderr.write(`${text}\n`);
  if (io.env.SVC_DEBUG && error instanceof Error && error.stack) line(error.stack);
  if (error instanceof UsageError) {
    line(`error: ${error.message}`);
    return EXIT.usage;
  }
  if (error instanceof SvcApiError) {
    if (json) {
      line(
        JSON.stringify({
          error: { code: error.code, message: error.message, details: error.details, request_id: error.requestId },
        }),
      );
      return EXIT.api;
    }
    const ids = [error.code, `HTTP ${error.status}`, error.requestId ? `request ${error.requestId}` : undefined];
    line(`error: ${error.message} (${ids.filter(Boolean).join(', ')})`);
    for (const detail of Array.isArray(error.details) ? (error.details as Detail[]) : []) line(`  ${describe(detail)}`);
    return EXIT.api;
  }
  if (error instanceof SvcNetworkError) {
    line(`error: ${error.message}`);
    return EXIT.network;
  }
  if (error instanceof OutcomeError) {
    line(`error: ${error.message}`);
    return EXIT.api;
  }
  line(`error: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.api;
}

function describe(detail: Detail): string {
  const where = [detail.account_id, detail.path].filter(Boolean).join(' ');
  const rule = detail.rule ? ` [${detail.rule}]` : '';
  return `${where ? `${where}: ` : ''}${detail.message ?? ''}${rule}`;
}
