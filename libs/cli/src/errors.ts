/** Exit statuses: the contract scripts rely on (docs/cli.md, "Exit status"). */
export const EXIT = { ok: 0, api: 1, usage: 2, network: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Bad input to the CLI itself (a flag, an argument, a missing login): one line on stderr, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A failure the API did not report as an error but which the command must still exit 1 for, e.g. a
 * post whose targets failed under `--wait`, or a validation that found problems. Its output has
 * already been printed; only the message line remains.
 */
export class OutcomeError extends Error {
  override readonly name = 'OutcomeError';
}
