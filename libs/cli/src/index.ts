// @svc/cli as a library: the whole command line in-process (tests, tools that embed it).
export { runCli } from './run-cli.ts';
export { buildProgram, VERSION } from './program.ts';
export { EXIT, type ExitCode } from './errors.ts';
export type { CliIo } from './io.ts';
