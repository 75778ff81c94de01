import { Command } from 'commander';
import { registerAccounts } from './commands/accounts.ts';
import { registerAnalytics } from './commands/analytics.ts';
import { registerDev } from './commands/dev.ts';
import { registerHistory } from './commands/history.ts';
import { registerJob } from './commands/job.ts';
import { registerLogin } from './commands/login.ts';
import { registerMcp } from './commands/mcp.ts';
import { registerMedia } from './commands/media.ts';
import { registerPost } from './commands/post.ts';
import { registerQueue } from './commands/queue.ts';
import { registerPosts } from './commands/posts.ts';
import { registerRecurrences } from './commands/recurrences.ts';
import { registerWebhooks } from './commands/webhooks.ts';
import type { CliIo } from './io.ts';

export const VERSION = '0.1.0';

/**
 * The command tree (`noun verb`, like gh). Commander never exits the process here: it throws, and
 * runCli turns that into an exit status; its messages are already one line ("error: ...").
 */
export function buildProgram(io: CliIo): Command {
  const program = new Command('svc')
    .description('Publish and schedule posts to Instagram, Facebook, X, LinkedIn and TikTok from the command line.')
    .version(VERSION, '-V, --version')
    .option('--json', 'print machine-readable JSON instead of text')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One line per error: commander puts its "(Did you mean ...?)" on a line of its own.
      outputError: (text, write) => write(`${text.trimEnd().replace(/\n+/g, ' ')}\n`),
    })
    .addHelpText(
      'after',
      [
        '',
        'Environment: SVC_API_KEY, SVC_BASE_URL and SVC_TOKEN (a dashboard JWT) override the stored login.',
        'Exit status: 0 success, 1 API error, 2 usage error, 3 network error.',
      ].join('\n'),
    );
  registerLogin(program, io);
  registerDev(program, io);
  registerAccounts(program, io);
  registerPost(program, io);
  registerQueue(program, io);
  registerPosts(program, io);
  registerRecurrences(program, io);
  registerHistory(program, io);
  registerJob(program, io);
  registerMedia(program, io);
  registerWebhooks(program, io);
  registerAnalytics(program, io);
  registerMcp(program, io);
  return program;
}
