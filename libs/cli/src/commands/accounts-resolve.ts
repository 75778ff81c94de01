import type { SvcClient } from '@svc/sdk';
import { UsageError } from '../errors.ts';
import { isNetwork, type Network } from '../parse.ts';

export interface AccountSummary {
  id: string;
  provider: string;
  handle: string | null;
  health: string;
  connection_type: string;
  created_at: string;
}

/** Every account of the organization matching the filter, across pages. */
export async function allAccounts(
  client: SvcClient,
  filter: { provider?: Network | undefined; q?: string | undefined } = {},
): Promise<AccountSummary[]> {
  const items: AccountSummary[] = [];
  const query = {
    ...(filter.provider === undefined ? {} : { provider: filter.provider }),
    ...(filter.q === undefined ? {} : { q: filter.q }),
  };
  for await (const account of client.accounts.list(query)) items.push(account);
  return items;
}

/**
 * The account ids `--to` names, in the order given, each once: `all` (every account), a network name
 * (its accounts), `@handle` or `handle` (the account with that handle, case-insensitive), or an id.
 * A name matching nothing, or a handle matching accounts on several networks, is a usage error
 * naming it; `network:@handle` picks one of those.
 */
export function resolveTargets(targets: string[], accounts: AccountSummary[]): string[] {
  const chosen = new Set<string>();
  for (const raw of targets) {
    const target = raw.trim();
    if (target === '') continue;
    for (const account of matches(target, accounts)) chosen.add(account.id);
  }
  if (chosen.size === 0) throw new UsageError('--to names no account');
  return [...chosen];
}

function matches(target: string, accounts: AccountSummary[]): AccountSummary[] {
  const lower = target.toLowerCase();
  if (lower === 'all') {
    if (accounts.length === 0) throw new UsageError('--to all: no account is connected (svc accounts list)');
    return accounts;
  }
  if (isNetwork(lower)) {
    const found = accounts.filter((account) => account.provider === lower);
    if (found.length === 0) throw new UsageError(`--to ${target}: no ${lower} account is connected`);
    return found;
  }
  const byId = accounts.find((account) => account.id === target);
  if (byId !== undefined) return [byId];
  const [network, handle] = lower.includes(':') ? lower.split(':', 2) : [undefined, lower];
  const wanted = (handle ?? '').replace(/^@/, '');
  const found = accounts.filter(
    (account) =>
      account.handle?.toLowerCase().replace(/^@/, '') === wanted &&
      (network === undefined || account.provider === network),
  );
  if (found.length === 1) return found;
  if (found.length > 1)
    throw new UsageError(
      `--to ${target} matches ${found.length} accounts (${found.map((a) => `${a.provider}:@${a.handle ?? ''}`).join(', ')}): name one as network:@handle`,
    );
  throw new UsageError(`--to ${target}: no connected account has that id or handle (svc accounts list)`);
}
