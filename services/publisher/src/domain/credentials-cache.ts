import type { AccountCredentials, AccountsClient } from './accounts-client.ts';

export interface CredentialsCacheOptions {
  /** How long a token answered by accounts is reused; 0 turns the cache off. */
  ttlMs: number;
  /** Accounts remembered at most (the oldest answer goes first). */
  maxEntries: number;
  now?: () => number;
}

/** A cached token is not used this close to its expiry: accounts refreshes it then, and the RPC brings the new one. */
const EXPIRY_MARGIN_MS = 60_000;

interface Entry {
  answer: Promise<AccountCredentials>;
  /** Reusable until then (set once the answer arrived). */
  until: number;
}

/**
 * Every delivery asked accounts for its account's token: an RPC that cost accounts about 2 ms of CPU
 * per delivery, plus two broker messages and the publisher's side of the call (docs/performance.md).
 * A token is now reused for `ttlMs` by every delivery of that account in this process, and concurrent
 * deliveries of one account share one call. What keeps a reused token honest:
 * - any `account.state_changed` of the account (deleted, needs reconnecting, reconnected, rules
 *   changed) drops it at once (`forget`), from the same events the accept replica follows;
 * - a forced refresh (the network said the token expired) always asks accounts and keeps the new one;
 * - a token is not reused within a minute of its expiry, nor past `ttlMs`;
 * - failures are never kept: the next delivery asks again.
 * So a revoke is seen by deliveries as soon as its event arrives, and at the latest `ttlMs` later
 * if the event is delayed (the accounts outbox is down); docs/architecture.md.
 */
export class CredentialsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly options: CredentialsCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Wraps `client` so its credentials come from this cache; lookups pass through. */
  wrap(client: AccountsClient): AccountsClient {
    if (this.options.ttlMs <= 0) return client;
    return {
      lookup: (orgId, accountIds, requestId) => client.lookup(orgId, accountIds, requestId),
      credentials: (orgId, accountId, forceRefresh, requestId) =>
        this.get(orgId, accountId, forceRefresh, () => client.credentials(orgId, accountId, forceRefresh, requestId)),
    };
  }

  forget(orgId: string, accountId: string): void {
    this.entries.delete(keyOf(orgId, accountId));
  }

  get size(): number {
    return this.entries.size;
  }

  private get(
    orgId: string,
    accountId: string,
    forceRefresh: boolean,
    ask: () => Promise<AccountCredentials>,
  ): Promise<AccountCredentials> {
    const key = keyOf(orgId, accountId);
    const cached = this.entries.get(key);
    if (!forceRefresh && cached !== undefined && this.now() < cached.until) return cached.answer;
    const entry: Entry = { answer: ask(), until: Number.POSITIVE_INFINITY };
    this.entries.delete(key); // re-inserted last: the Map's order is the eviction order
    this.entries.set(key, entry);
    while (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    entry.answer.then(
      (credentials) => {
        const expires =
          credentials.token_expires_at === null
            ? Number.POSITIVE_INFINITY
            : Date.parse(credentials.token_expires_at) - EXPIRY_MARGIN_MS;
        entry.until = Math.min(this.now() + this.options.ttlMs, expires);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.answer;
  }
}

const keyOf = (orgId: string, accountId: string) => `${orgId}\n${accountId}`;
