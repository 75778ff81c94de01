import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { action, type CommandContext } from '../command-context.ts';
import { checkBaseUrl } from '../config/credentials.ts';
import { UsageError } from '../errors.ts';
import type { CliIo } from '../io.ts';

interface LoginOptions {
  apiKey?: string;
  baseUrl?: string;
  dev?: boolean;
  org?: string;
}

export function registerLogin(program: Command, io: CliIo): void {
  program
    .command('login')
    .description('store an API key and the API address in your config directory (file mode 0600)')
    .option('--api-key <key>', 'the API key (svc_...); asked for, or read from stdin, when omitted')
    .option('--base-url <url>', 'the API address (default http://127.0.0.1:8080, or SVC_BASE_URL)')
    .option('--dev', 'development gateways only: get a dashboard token and create an API key with it')
    .option('--org <id>', 'with --dev: the organization (default: the gateway’s demo organization)')
    .addHelpText(
      'after',
      '\nExamples:\n  svc login --dev\n  svc login --api-key svc_... --base-url https://api.example.com',
    )
    .action(action<LoginOptions>(io, login));
}

async function login(ctx: CommandContext, _args: unknown[], options: LoginOptions): Promise<void> {
  const session = await ctx.session();
  if (options.baseUrl !== undefined) session.credentials.baseUrl = checkBaseUrl(options.baseUrl);
  if (options.org !== undefined && options.dev !== true) throw new UsageError('--org goes with --dev');
  if (options.dev === true) {
    if (options.apiKey !== undefined) throw new UsageError('--dev creates its own API key: leave out --api-key');
    const minted = await session.devToken(options.org);
    const created = await session
      .client({ token: minted.token })
      .apiKeys.create({ name: `svc cli on ${hostname()}`.slice(0, 100) });
    await session.save({
      base_url: session.baseUrl,
      api_key: created.key,
      token: minted.token,
      token_expires_at: minted.expires_at,
      dev_org_id: minted.org_id,
    });
    ctx.out.result({ base_url: session.baseUrl, org_id: minted.org_id, api_key_prefix: created.prefix }, () =>
      [
        `Logged in to ${session.baseUrl} as organization ${minted.org_id} (development).`,
        `Created API key ${created.prefix}…; stored it and a dashboard token in ${session.configFile}.`,
      ].join('\n'),
    );
    return;
  }
  const apiKey = options.apiKey ?? (await askForKey(ctx));
  if (!apiKey.startsWith('svc_'))
    throw new UsageError('an API key starts with svc_ (create one with POST /v1/api-keys)');
  // One cheap authenticated call, so a mistyped key is refused now rather than on the next command.
  await session.client({ apiKey }).accounts.list({ limit: 1 }).page();
  await session.save({ base_url: session.baseUrl, api_key: apiKey });
  ctx.out.result(
    { base_url: session.baseUrl, api_key_prefix: apiKey.slice(0, 12) },
    () => `Logged in to ${session.baseUrl}; stored the API key in ${session.configFile}.`,
  );
}

/** The key typed at a prompt, or the first line of stdin when it is not a terminal (`... | svc login`). */
async function askForKey(ctx: CommandContext): Promise<string> {
  const { stdin, stderr } = ctx.io;
  const lines = createInterface({ input: stdin, output: stdin.isTTY === true ? stderr : undefined, terminal: false });
  try {
    if (stdin.isTTY === true) stderr.write('API key (svc_...): ');
    for await (const line of lines) {
      const key = line.trim();
      if (key !== '') return key;
    }
  } finally {
    lines.close();
  }
  throw new UsageError('no API key given: pass --api-key, type it at the prompt, or pipe it on stdin');
}
