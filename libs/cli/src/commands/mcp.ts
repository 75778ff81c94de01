import type { Command } from 'commander';
import { serveStdio } from '@svc/mcp';
import { SvcNetworkError } from '@svc/sdk';
import { action } from '../command-context.ts';
import { UsageError } from '../errors.ts';
import type { CliIo } from '../io.ts';

export function registerMcp(program: Command, io: CliIo): void {
  program
    .command('mcp')
    .description('run the MCP server over stdio for an AI agent (uses your API key)')
    .addHelpText(
      'after',
      [
        '',
        'An agent starts `svc mcp` as a command; it reads SVC_API_KEY and SVC_BASE_URL, or the stored',
        'login. Stdout carries only the protocol. Tools and guard-rails: docs/mcp.md.',
      ].join('\n'),
    )
    .action(
      action(io, async (ctx) => {
        const session = await ctx.session();
        const apiKey = session.credentials.apiKey;
        if (apiKey === undefined) throw new UsageError('svc mcp needs an API key: run svc login, or set SVC_API_KEY');
        let server;
        try {
          server = await serveStdio({ baseUrl: session.baseUrl, apiKey, stdin: io.stdin, stdout: io.stdout });
        } catch (error) {
          // The server starts by reading the API's document: no answer there is a network error (exit 3).
          if (error instanceof TypeError)
            throw new SvcNetworkError(`cannot reach ${session.baseUrl}: ${error.message}`, { cause: error });
          throw error;
        }
        await server.closed;
      }),
    );
}
