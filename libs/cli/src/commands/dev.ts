import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';

export function registerDev(program: Command, io: CliIo): void {
  const dev = program.command('dev').description('development helpers (gateways in development mode only)');
  dev
    .command('token')
    .description('print a dashboard JWT (15 minutes) from POST /v1/dev/token')
    .option('--org <id>', 'the organization (default: the gateway’s demo organization)')
    .action(
      action<{ org?: string }>(io, async (ctx, _args, options) => {
        const session = await ctx.session();
        const minted = await session.devToken(options.org);
        ctx.out.result(minted, () => minted.token);
      }),
    );
}
