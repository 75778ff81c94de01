import type { Command } from 'commander';
import { SvcNetworkError } from '@svc/sdk';
import { configPath } from './config/config-file.ts';
import type { CliIo } from './io.ts';
import { createOutput, type Output } from './output/output.ts';
import { Session } from './session.ts';

/** What every command's action gets: where to print, and the session (opened on first use). */
export interface CommandContext {
  io: CliIo;
  out: Output;
  session(): Promise<Session>;
  /** Whether progress bars are drawn: on a terminal, or always with SVC_PROGRESS=always. */
  progress: boolean;
}

export function createContext(io: CliIo, json: boolean): CommandContext {
  let session: Promise<Session> | undefined;
  const mode = io.env.SVC_PROGRESS;
  return {
    io,
    out: createOutput(io, json),
    session: () => (session ??= Session.open(configPath(io.env), io.env)),
    progress: mode === 'always' || (mode !== 'never' && !json && io.stderr.isTTY === true),
  };
}

/**
 * Adapts a command's handler to commander's action signature: the handler gets the context, the
 * parsed positional arguments (a variadic one as an array) and the command's own options.
 */
export function action<Options>(
  io: CliIo,
  handler: (ctx: CommandContext, args: unknown[], options: Options) => Promise<void>,
): (...params: unknown[]) => Promise<void> {
  return async (...params) => {
    const command = params[params.length - 1] as Command;
    const json = command.optsWithGlobals<{ json?: boolean }>().json === true;
    const ctx = createContext(io, json);
    try {
      await handler(ctx, command.processedArgs as unknown[], command.opts() as Options);
    } catch (error) {
      // The SDK does not know which address the user configured: the message names it.
      if (!(error instanceof SvcNetworkError)) throw error;
      const { baseUrl } = await ctx.session();
      throw new SvcNetworkError(`${error.message} (${baseUrl})`, { cause: error, timedOut: error.timedOut });
    }
  };
}
