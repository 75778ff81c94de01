import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { parsePositiveInt } from '../parse.ts';
import { renderPost, type PostView } from '../post/post-view.ts';
import { watchPost } from '../post/watch-post.ts';

export function registerJob(program: Command, io: CliIo): void {
  program
    .command('job')
    .description('a post (job) with the status of each target')
    .argument('<id>', 'the post or job id')
    .option('--watch', 'follow each target’s status until every one is final')
    .option('--timeout <seconds>', 'with --watch: how long to follow (default 600)', parsePositiveInt)
    .action(
      action<{ watch?: boolean; timeout?: number }>(io, async (ctx, [id], options) => {
        const client = (await ctx.session()).api();
        if (options.watch !== true) {
          const post = (await client.posts.get(id as string)) as PostView;
          ctx.out.result(post, () => renderPost(post));
          return;
        }
        // Each change is printed as it is seen (the table again), then the final post is the result.
        let printed = false;
        const post = await watchPost(client, id as string, (options.timeout ?? 600) * 1000, (current) => {
          if (ctx.out.json) return;
          if (printed) ctx.io.stdout.write('\n');
          ctx.io.stdout.write(`${renderPost(current)}\n`);
          printed = true;
        });
        if (ctx.out.json) ctx.out.result(post, () => '');
      }),
    );
}
