import type { Command } from 'commander';
import { action } from '../command-context.ts';
import type { CliIo } from '../io.ts';
import { parseAt } from '../post/post-body.ts';
import { renderPost, type PostView } from '../post/post-view.ts';

/** `svc posts publish|retry|delete <id>`: what becomes of a post after it was created. */
export function registerPosts(program: Command, io: CliIo): void {
  const posts = program.command('posts').description('drafts and failed posts: publish, retry, delete');

  posts
    .command('publish')
    .description('send a draft now, or schedule it with --at')
    .argument('<id>', 'the draft’s id')
    .option('--at <time>', 'schedule for this time, with its zone (2026-12-24T09:00+01:00)')
    .action(
      action<{ at?: string }>(io, async (ctx, [id], options) => {
        const client = (await ctx.session()).api();
        const body = options.at === undefined ? {} : { scheduled_at: parseAt(options.at) };
        const post = (await client.posts.publish(id as string, body)) as PostView;
        ctx.out.result(post, () => renderPost(post));
      }),
    );

  posts
    .command('retry')
    .description('deliver a failed or partial post’s failed targets again (published ones are never re-posted)')
    .argument('<id>', 'the post’s id')
    .action(
      action(io, async (ctx, [id]) => {
        const client = (await ctx.session()).api();
        const post = (await client.posts.retry(id as string)) as PostView;
        ctx.out.result(post, () => renderPost(post));
      }),
    );

  posts
    .command('delete')
    .description('delete a draft')
    .argument('<id>', 'the draft’s id')
    .action(
      action(io, async (ctx, [id]) => {
        const client = (await ctx.session()).api();
        await client.posts.delete(id as string);
        ctx.out.result({ id, deleted: true }, () => `Draft ${id as string} deleted.`);
      }),
    );
}
