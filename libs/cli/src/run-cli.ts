import { CommanderError } from 'commander';
import { EXIT, type ExitCode } from './errors.ts';
import type { CliIo } from './io.ts';
import { buildProgram } from './program.ts';
import { reportError } from './report-error.ts';

/**
 * One run of `svc` with the user's arguments (without `node` and the script): parses, runs the
 * command, and turns whatever went wrong into one message and an exit status. Never throws.
 */
export async function runCli(argv: string[], io: CliIo): Promise<ExitCode> {
  const program = buildProgram(io);
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    // Commander has already printed its own message (or the help) by the time it throws.
    if (error instanceof CommanderError)
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.ok : EXIT.usage;
    return reportError(error, io, argv.includes('--json'));
  }
}
