import type { QueryParams } from '@svc/sdk';
import { InvalidArgumentError, type Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { columns, truncate } from '../output/columns.ts';
import { parsePositiveInt, parseProvider, type Network } from '../parse.ts';
import type { PostView } from '../post/post-view.ts';

type Status = NonNullable<QueryParams<'listPosts'>['status']>;
const STATUSES: Status[] = ['scheduled', 'queued', 'processing', 'published', 'partial', 'failed', 'canceled', 'draft'];

interface HistoryOptions {
  status?: Status;
  provider?: Network;
  search?: string;
  limit: number;
}

export function registerHistory(program: Command, io: CliIo): void {
  program
    .command('history')
    .description('recent posts, newest first')
    .option('--status <status>', STATUSES.join(', '), (value: string) => {
      if (!(STATUSES as string[]).includes(value))
        throw new InvalidArgumentError(`expected one of ${STATUSES.join(', ')}`);
      return value;
    })
    .option('--provider <network>', 'posts with a target on this network', parseProvider)
    .option('--search <text>', 'posts whose text contains this')
    .option('--limit <n>', 'at most this many posts (default 20)', parsePositiveInt, 20)
    .action(
      action<HistoryOptions>(io, async (ctx, _args, options) => {
        const client = (await ctx.session()).api();
        const query = {
          ...(options.status === undefined ? {} : { status: options.status }),
          ...(options.provider === undefined ? {} : { provider: options.provider }),
          ...(options.search === undefined ? {} : { q: options.search }),
          limit: Math.min(options.limit, 100),
        };
        const posts: PostView[] = [];
        for await (const post of client.posts.list(query)) {
          posts.push(post as PostView);
          if (posts.length >= options.limit) break;
        }
        ctx.out.result(posts, () =>
          posts.length === 0
            ? 'No posts.'
            : columns(
                ['ID', 'STATUS', 'CREATED', 'NETWORKS', 'TEXT'],
                posts.map((post) => [
                  post.id,
                  post.status,
                  post.created_at.slice(0, 16).replace('T', ' '),
                  post.results.map((result) => `${result.provider}:${result.status}`).join(' '),
                  truncate(post.text, 40),
                ]),
              ),
        );
      }),
    );
}
