import type { Command } from 'commander';
import { action, type CommandContext } from '../command-context.ts';
import { OutcomeError, UsageError } from '../errors.ts';
import type { CliIo } from '../io.ts';
import { uploadFiles } from '../media/upload-files.ts';
import { columns } from '../output/columns.ts';
import { collect, parsePositiveInt } from '../parse.ts';
import { altTextsInApiOrder, isUrl, parseAt, parsePostTypes, postBody, splitList } from '../post/post-body.ts';
import { failedTargets, renderPost, renderTargets, type PostView } from '../post/post-view.ts';
import { describeRule, machineTimeZone, recurrenceOf } from '../post/recurrence-option.ts';
import { watchPost } from '../post/watch-post.ts';
import { allAccounts, resolveTargets } from './accounts-resolve.ts';

interface PostOptions {
  to: string[];
  media?: string[];
  at?: string;
  queue?: boolean;
  validate?: boolean;
  draft?: boolean;
  wait?: boolean;
  timeout?: number;
  tiktokPrivacy: string;
  alt?: string[];
  postType?: string[];
  repeat?: string;
  timezone?: string;
  until?: string;
  count?: number;
}

const DEFAULT_WAIT_S = 600;

export function registerPost(program: Command, io: CliIo): void {
  program
    .command('post')
    .description('publish (or schedule) a post to one or more accounts')
    .argument('<text>', 'the text of the post')
    .requiredOption('--to <targets>', 'all, a network, @handle or account id; comma-separated or repeated', collect)
    .option('--media <file|url>', 'a local file (uploaded first) or an http(s) URL; repeatable', collect)
    .option('--at <time>', 'schedule for this time, with its zone (2026-12-24T09:00+01:00)')
    .option('--queue', 'schedule at the next free time of the posting queue (svc queue get)')
    .option('--validate', 'check the post against every target’s rules and print every problem; creates nothing')
    .option('--draft', 'save it as a draft: nothing is sent until `svc posts publish <id>`')
    .option('--wait', 'wait until every target is published or failed, and print each outcome')
    .option('--timeout <seconds>', `with --wait: how long to wait (default ${DEFAULT_WAIT_S})`, parsePositiveInt)
    .option('--tiktok-privacy <level>', 'TikTok privacy_level for TikTok targets', 'SELF_ONLY')
    .option('--alt <text>', 'alt text of the --media in the same position ("" for none); repeatable', collect)
    .option(
      '--post-type <network=type>',
      'post_type for a network (instagram=reel|story, facebook=reel, tiktok=photo|draft...); repeatable',
      collect,
    )
    .option('--repeat <days@HH:MM>', 'repeat weekly on these days at this time, e.g. mon,wed,fri@09:00')
    .option('--timezone <zone>', "with --repeat: the IANA time zone of its time (default this machine's)")
    .option('--until <time>', 'with --repeat: no occurrence after this time, with its zone')
    .option('--count <n>', 'with --repeat: this many occurrences in all, the first included', parsePositiveInt)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  svc post "Hello" --to all --media ./photo.jpg --wait',
        '  svc post "Launch day" --to @acme,linkedin --at 2026-12-24T09:00+01:00',
        '  svc post "Draft copy" --to x --validate',
        '  svc post "New reel" --to instagram --media ./clip.mp4 --post-type instagram=reel',
        '  svc post "Our team" --to x,linkedin --media ./team.jpg --alt "Five people at a table"',
        '  svc post "Weekly tips" --to linkedin --repeat mon,thu@09:00 --timezone Europe/Berlin --count 8',
      ].join('\n'),
    )
    .action(action<PostOptions>(io, createPost));
}

async function createPost(ctx: CommandContext, args: unknown[], options: PostOptions): Promise<void> {
  const text = args[0] as string;
  if (text.trim() === '') throw new UsageError('the text of the post is empty');
  if (options.timeout !== undefined && options.wait !== true) throw new UsageError('--timeout goes with --wait');
  if (options.validate === true && options.wait === true)
    throw new UsageError('--validate creates nothing to --wait for');
  if (options.queue === true && options.at !== undefined) throw new UsageError('--queue and --at exclude each other');
  if (options.draft === true && (options.wait === true || options.validate === true))
    throw new UsageError('--draft sends nothing to --wait for or --validate; validate happens when it is saved');
  if (options.repeat !== undefined && (options.at !== undefined || options.queue === true))
    throw new UsageError('--repeat takes its times from its rule: not with --at or --queue');
  if (options.repeat !== undefined && (options.draft === true || options.wait === true))
    throw new UsageError('--repeat schedules its first time: not with --draft, nor --wait');
  const recurrence = recurrenceOf(options, machineTimeZone());
  if (recurrence !== undefined && options.timezone === undefined)
    ctx.out.note(`Repeating in ${recurrence.timezone}, this machine's time zone (--timezone for another).`);
  const scheduledAt = options.at === undefined ? undefined : parseAt(options.at);
  const media = options.media ?? [];
  const altTexts = altTextsInApiOrder(media, options.alt ?? []);
  const postTypes = parsePostTypes(options.postType ?? []);
  const client = (await ctx.session()).api();

  const accounts = await allAccounts(client);
  const accountIds = resolveTargets(splitList(options.to), accounts);
  const providers = accounts.filter((account) => accountIds.includes(account.id)).map((account) => account.provider);
  const uploaded = await uploadFiles(
    ctx,
    client,
    media.filter((item) => !isUrl(item)),
  );
  const body = {
    ...postBody({
      accountIds,
      providers,
      text,
      mediaIds: uploaded.map((record) => record.media_id),
      mediaUrls: media.filter(isUrl),
      scheduledAt,
      tiktokPrivacy: options.tiktokPrivacy,
      altTexts,
      postTypes,
    }),
    ...(options.queue === true ? { queue: true } : {}),
    ...(recurrence === undefined ? {} : { recurrence }),
  };

  if (options.validate === true) {
    const verdict = await client.posts.validate(body);
    ctx.out.result(verdict, () =>
      verdict.valid
        ? `Valid for all ${accountIds.length} accounts.`
        : columns(
            ['ACCOUNT', 'FIELD', 'RULE', 'PROBLEM'],
            verdict.problems.map((problem) => [problem.account_id, problem.path, problem.rule, problem.message]),
          ),
    );
    if (!verdict.valid) throw new OutcomeError(`${verdict.problems.length} problem(s): the post would be refused`);
    return;
  }

  const created = (await client.posts.create(options.draft === true ? { ...body, draft: true } : body)) as PostView;
  if (options.wait !== true) {
    ctx.out.result(created, () =>
      recurrence === undefined || created.recurrence_id === undefined
        ? renderPost(created)
        : `${renderPost(created)}\nRecurrence ${created.recurrence_id}: ${describeRule(recurrence)}`,
    );
    return;
  }
  ctx.out.note(`Post ${created.id} created; waiting for ${accountIds.length} target(s)...`);
  const post = await watchPost(client, created.id, (options.timeout ?? DEFAULT_WAIT_S) * 1000, (current) =>
    ctx.out.note(`${current.status}: ${current.results.map((r) => `${r.provider} ${r.status}`).join(', ')}`),
  );
  ctx.out.result(post, () => `Post ${post.id}: ${post.status}\n${renderTargets(post)}`);
  const failed = failedTargets(post);
  if (failed.length > 0) throw new OutcomeError(`${failed.length} of ${post.results.length} target(s) failed`);
}
