import type { ResponseData } from '@svc/sdk';
import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { columns } from '../output/columns.ts';
import { parseProvider, parsePositiveInt, type Network } from '../parse.ts';
import { connectAccount, type ConnectOptions } from './accounts-connect.ts';
import { allAccounts } from './accounts-resolve.ts';

export function registerAccounts(program: Command, io: CliIo): void {
  const accounts = program.command('accounts').description('connected social accounts');

  accounts
    .command('list')
    .description('list connected accounts')
    .option('--provider <network>', 'only this network', parseProvider)
    .option('--search <text>', 'handles containing this text')
    .action(
      action<{ provider?: Network; search?: string }>(io, async (ctx, _args, options) => {
        const client = (await ctx.session()).api();
        const items = await allAccounts(client, { provider: options.provider, q: options.search });
        ctx.out.result(items, () =>
          items.length === 0
            ? 'No accounts connected yet: svc accounts connect <network> --help'
            : columns(
                ['ID', 'NETWORK', 'HANDLE', 'HEALTH', 'TYPE'],
                items.map((a) => [
                  a.id,
                  a.provider,
                  a.handle === null ? null : `@${a.handle}`,
                  a.health,
                  a.connection_type,
                ]),
              ),
        );
      }),
    );

  accounts
    .command('connect')
    .description('connect an account: with --token (bring your own token), or through the network’s OAuth consent')
    .argument('<network>', 'instagram, facebook, x, linkedin or tiktok', parseProvider)
    .option('--token <access_token>', 'an access token you already have (BYOK)')
    .option('--id <platform_account_id>', 'with --token: the network’s id of the account the token acts for')
    .option('--handle <handle>', 'with --token: the handle to show for it')
    .option('--timeout <seconds>', 'without --token: how long to wait for the consent (default 300)', parsePositiveInt)
    .action(action<ConnectOptions>(io, connectAccount));

  accounts
    .command('refresh')
    .description('refresh an account’s token (or check a BYOK token) with its network')
    .argument('<account_id>')
    .action(
      action(io, async (ctx, [id]) => {
        const result = await (await ctx.session()).api().accounts.refresh(id as string);
        ctx.out.result(
          result,
          () => `${result.id}: ${result.health}, token expires ${result.token_expires_at ?? 'never'}`,
        );
      }),
    );

  accounts
    .command('remove')
    .description('disconnect an account')
    .argument('<account_id>')
    .action(
      action(io, async (ctx, [id]) => {
        await (await ctx.session()).api().accounts.remove(id as string);
        ctx.out.result({ id, removed: true }, () => `Removed ${id as string}.`);
      }),
    );

  accounts
    .command('capabilities')
    .description('what an account can publish: post types, text length, media kinds and limits')
    .argument('<account_id>')
    .action(
      action(io, async (ctx, [id]) => {
        const caps = await (await ctx.session()).api().accounts.capabilities(id as string);
        ctx.out.result(caps, () => renderCapabilities(caps));
      }),
    );
}

type Capabilities = ResponseData<'getAccountCapabilities'>;

function renderCapabilities(caps: Capabilities): string {
  const media = Object.entries(caps.media).map(([kind, rules]) => [
    `  ${kind}`,
    (rules.mime_types ?? []).join(', '),
    rules.max_bytes === undefined ? null : `${Math.round(rules.max_bytes / 1024 / 1024)} MB`,
  ]);
  return [
    `${caps.provider} account ${caps.account_id}`,
    `post types:   ${caps.post_types.join(', ')}`,
    `text:         up to ${caps.max_text_length} characters`,
    `media:        up to ${caps.max_media} files`,
    columns(['  KIND', 'TYPES', 'MAX SIZE'], media),
    `first comment: ${caps.first_comment ? 'yes' : 'no'}, threads: ${caps.threads ? 'yes' : 'no'}, alt text: ${caps.alt_text ? 'yes' : 'no'}`,
    `scopes:       ${caps.scopes.join(' ') || '-'}`,
  ].join('\n');
}
