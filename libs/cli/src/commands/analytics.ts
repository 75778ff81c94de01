import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { columns } from '../output/columns.ts';
import { parsePositiveInt, parseProvider, type Network } from '../parse.ts';

interface AnalyticsOptions {
  post?: string;
  provider?: Network;
  refresh?: boolean;
  limit: number;
}

export function registerAnalytics(program: Command, io: CliIo): void {
  program
    .command('analytics')
    .description('metrics of published posts, one row per post and network')
    .option('--post <id>', 'one post (our id or the network’s post id)')
    .option('--provider <network>', 'one network', parseProvider)
    .option('--refresh', 'read the metrics from the networks again now')
    .option('--limit <n>', 'rows per page, at most 100 (default 25)', parsePositiveInt, 25)
    .action(
      action<AnalyticsOptions>(io, async (ctx, _args, options) => {
        const client = (await ctx.session()).api();
        const page = await client.analytics
          .list({
            ...(options.post === undefined ? {} : { postId: options.post }),
            ...(options.provider === undefined ? {} : { platform: options.provider }),
            ...(options.refresh === true ? { refresh: true } : {}),
            limit: Math.min(options.limit, 100),
          })
          .page();
        ctx.out.result(page, () =>
          page.items.length === 0
            ? 'No analytics yet: rows appear once posts are published.'
            : [
                columns(
                  ['POST', 'NETWORK', 'SYNC', 'METRICS'],
                  page.items.map((row) => [
                    row.post_id,
                    row.platform,
                    row.sync_status,
                    Object.entries(row.metrics)
                      .map(([key, value]) => `${key}=${value}`)
                      .join(' '),
                  ]),
                ),
                `${page.items.length} of ${page.total} rows`,
              ].join('\n'),
        );
      }),
    );
}
