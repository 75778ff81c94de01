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

/**
 * `svc accounts connect <network>`: with `--token`, registers the token (the API checks it with the
 * network first); without, prints the network's consent address (`GET /v1/oauth/{provider}/start`,
 * a dashboard token's privilege) and waits until the account shows up in the list.
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
  const { authorize_url } = await (await session.dashboard()).accounts.oauthStart(network);
  const timeoutS = options.timeout ?? DEFAULT_TIMEOUT_S;
  // With --json stdout holds only the connected account; the address is a JSON line on stderr.
  if (ctx.out.json) ctx.io.stderr.write(`${JSON.stringify({ authorize_url })}\n`);
  else ctx.out.line(`Open this address to connect your ${network} account:\n  ${authorize_url}`);
  ctx.out.note(`Waiting up to ${timeoutS} s for the account to appear...`);
  const deadline = Date.now() + timeoutS * 1000;
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
  throw new OutcomeError(`no ${network} account was connected within ${timeoutS} s`);
}

/** Each account's view by id: a reconnect keeps the id but changes the view (token expiry, health). */
function snapshot(accounts: AccountSummary[]): Map<string, string> {
  return new Map(accounts.map((account) => [account.id, JSON.stringify(account)]));
}
