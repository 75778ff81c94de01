import type { Readable, Writable } from 'node:stream';

/**
 * What one run of the CLI reads and writes. `main.ts` passes the process's own; keeping them here
 * (and the environment with them) means no command reaches for `process` itself.
 */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}
