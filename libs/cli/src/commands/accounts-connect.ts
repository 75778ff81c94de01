import { setTimeout as delay } from 'node:timers/promises';
import type { CommandContext } from '../command-context.ts';
import { OutcomeError, UsageError } from '../errors.ts';
import type { Network } from '../parse.ts';
import { allAccounts, type AccountSummary } from './accounts-resolve.ts';

export interface ConnectOptions {
  token?: string;
  id?: string;
  handle?: string;
  timeout?: number;
}

const POLL_MS = 1_000;
const DEFAULT_TIMEOUT_S = 300;

/** After the link expires, how long a consent already under way may still take to reach the callback. */
const CALLBACK_GRACE_MS = 30_000;

/**
 * `svc accounts connect <network>`: with `--token`, registers the token (the API checks it with the
 * network first); without, starts an OAuth connect (`GET /v1/oauth/{provider}/start`, a dashboard
 * token's privilege), prints its hand-off link for the user to open in their own browser (the
 * consent is bound to a browser, and the CLI is not one), and waits until the account shows up.
 */
export async function connectAccount(ctx: CommandContext, args: unknown[], options: ConnectOptions): Promise<void> {
  const network = args[0] as Network;
  const session = await ctx.session();
  if (options.token !== undefined) {
    if (options.id === undefined) throw new UsageError('--token needs --id <platform_account_id>');
    if (options.timeout !== undefined) throw new UsageError('--timeout is for the OAuth flow (without --token)');
    const account = await session.api().accounts.create({
      provider: network,
      platform_account_id: options.id,
      ...(options.handle === undefined ? {} : { handle: options.handle }),
      credentials: { access_token: options.token },
    });
    ctx.out.result(
      account,
      () => `Connected ${account.provider} account ${account.id}${account.handle ? ` (@${account.handle})` : ''}.`,
    );
    return;
  }
  if (options.id !== undefined || options.handle !== undefined)
    throw new UsageError('--id and --handle go with --token');
  if (!session.canAuthorizeDashboard())
    throw new UsageError(
      'connecting through OAuth needs a dashboard token (SVC_TOKEN, or svc login --dev); or pass --token and --id',
    );
  const api = session.api();
  const before = snapshot(await allAccounts(api, { provider: network }));
  const started = await (await session.dashboard()).accounts.oauthStart(network);
  const { handoff_url, handoff_expires_at } = started;
  if (handoff_url === undefined || handoff_expires_at === undefined)
    throw new OutcomeError('the API could not make a connection link just now; try again in a moment');
  const timeoutS = options.timeout ?? DEFAULT_TIMEOUT_S;
  const expiresAt = new Date(handoff_expires_at);
  // With --json stdout holds only the connected account; the link is a JSON line on stderr.
  if (ctx.out.json) ctx.io.stderr.write(`${JSON.stringify({ handoff_url, handoff_expires_at })}\n`);
  else
    ctx.out.line(
      `Open this link in your browser to connect your ${network} account (it works once, until ${expiresAt.toLocaleTimeString()}):\n  ${handoff_url}`,
    );
  ctx.out.note(`Waiting up to ${timeoutS} s for the account to appear...`);
  const linkEnds = expiresAt.getTime() + CALLBACK_GRACE_MS;
  const deadline = Math.min(Date.now() + timeoutS * 1000, linkEnds);
  while (Date.now() < deadline) {
    await delay(POLL_MS);
    const changed = (await allAccounts(api, { provider: network })).find(
      (account) => before.get(account.id) !== JSON.stringify(account),
    );
    if (changed !== undefined) {
      ctx.out.result(
        changed,
        () => `Connected ${changed.provider} account ${changed.id}${changed.handle ? ` (@${changed.handle})` : ''}.`,
      );
      return;
    }
  }
  throw new OutcomeError(
    deadline === linkEnds
      ? `the connection link expired before a ${network} account was connected; run the command again for a new one`
      : `no ${network} account was connected within ${timeoutS} s`,
  );
}

/** Each account's view by id: a reconnect keeps the id but changes the view (token expiry, health). */
function snapshot(accounts: AccountSummary[]): Map<string, string> {
  return new Map(accounts.map((account) => [account.id, JSON.stringify(account)]));
}
