import type { Logger } from '@svc/logger';
import type { NetworkAnalytics, Network, PostReading } from '@svc/providers';
import type { AnalyticsRecord, AnalyticsRepository, RowUpdate } from '../data/analytics.repository.ts';
import { credentialsFailure, networkFailure, type OutcomeSettings, type SettledOutcome } from './account-outcome.ts';
import type { AccountCredentials, AccountsClient } from './accounts-client.ts';
import { staleAfter, type Clock } from './cadence.ts';
import type { NetworkReadGate } from './network-read-gate.ts';

export interface RefreshDeps {
  repo: AnalyticsRepository;
  accounts: AccountsClient;
  analytics: NetworkAnalytics;
  clock: Clock;
  logger: Logger;
  settings: OutcomeSettings;
  /** Accounts refreshed at once by one call of `refreshRows`. */
  concurrency: number;
  /** The process-wide limit on network calls, shared by list reads and the background. */
  gate: NetworkReadGate;
}

/** Thrown when the account's turn at the gate never came: its rows were not read (the caller hands them on). */
const NOT_STARTED = Symbol('not started');

type Update = { id: string; update: RowUpdate };

const liveSince = (row: AnalyticsRecord) => row.publishedAt ?? row.createdAt;

/** The row as it is, looked at again at `at` (a pause, a transient failure, a batch cut short). */
const unchanged = (row: AnalyticsRecord, at: Date): Update => ({
  id: row.id,
  update: { syncStatus: row.syncStatus, warnings: row.warnings, errorMessage: row.errorMessage, nextSyncAt: at },
});

/** One network reading: `synced` when every key came back, `partial` with warnings otherwise. */
function fromReading(row: AnalyticsRecord, reading: PostReading | undefined, now: Date): Update {
  const stale = staleAfter(liveSince(row), now);
  if (reading === undefined || reading.status === 'failed') {
    return {
      id: row.id,
      update: {
        syncStatus: 'failed',
        warnings: [],
        errorMessage: reading?.message ?? `The network gave no answer for post ${row.platformPostId}.`,
        nextSyncAt: stale,
      },
    };
  }
  return {
    id: row.id,
    update: {
      syncStatus: reading.warnings.length === 0 ? 'synced' : 'partial',
      metrics: reading.metrics,
      warnings: reading.warnings,
      errorMessage: null,
      lastUpdatedAt: now,
      staleAfter: stale,
      nextSyncAt: stale,
    },
  };
}

/** Applies a failure of the whole account call to its rows. */
async function applyOutcome(
  deps: RefreshDeps,
  rows: readonly AnalyticsRecord[],
  outcome: SettledOutcome,
): Promise<void> {
  const now = deps.clock();
  const first = rows[0]!;
  switch (outcome.kind) {
    case 'requires_reconnect':
    case 'failed':
      return deps.repo.updateMany(
        rows.map((row) => ({
          id: row.id,
          update: {
            syncStatus: outcome.kind,
            warnings: [],
            errorMessage: outcome.message,
            nextSyncAt: staleAfter(liveSince(row), now),
          },
        })),
      );
    case 'pause': {
      const until = new Date(outcome.untilMs);
      deps.logger.info(
        { account_id: first.accountId, platform: first.platform, until },
        'analytics deferred for a rate-limited account',
      );
      await deps.repo.pause(first, until, outcome.reason);
      return deps.repo.updateMany(rows.map((row) => unchanged(row, until)));
    }
    case 'later': {
      deps.logger.warn(
        { account_id: first.accountId, platform: first.platform, reason: outcome.reason },
        'analytics refresh postponed',
      );
      const retryAt = new Date(now.getTime() + outcome.retryInMs);
      return deps.repo.updateMany(rows.map((row) => unchanged(row, retryAt)));
    }
  }
}

/**
 * Reads one account's rows from its network in as few calls as the network allows, each call through
 * the gate. Throws NOT_STARTED, leaving the rows as they are, when `signal` ends the wait for the
 * gate before a call.
 */
async function refreshAccount(
  deps: RefreshDeps,
  rows: readonly AnalyticsRecord[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const first = rows[0]!;
  const platform = first.platform as Network;
  const nowMs = () => deps.clock().getTime();
  const read = async (credentials: AccountCredentials) => {
    const release = await deps.gate.acquire(signal);
    if (release === undefined) throw NOT_STARTED;
    try {
      return await deps.analytics[platform].read({
        credentials: { accessToken: credentials.access_token, extras: credentials.extras },
        platformPostIds: rows.map((row) => row.platformPostId),
      });
    } finally {
      release();
    }
  };

  let credentials: AccountCredentials;
  try {
    credentials = await deps.accounts.credentials(first.orgId, first.accountId, false);
  } catch (error) {
    return applyOutcome(deps, rows, credentialsFailure(error, platform, deps.settings));
  }
  let batch;
  try {
    batch = await read(credentials);
  } catch (error) {
    if (error === NOT_STARTED) throw error;
    const outcome = networkFailure(error, platform, nowMs(), deps.settings, false);
    if (outcome.kind !== 'refresh_token') return applyOutcome(deps, rows, outcome);
    // A refused token: renewed once through accounts (which marks the account if that fails), then one more read.
    try {
      credentials = await deps.accounts.credentials(first.orgId, first.accountId, true);
    } catch (refreshError) {
      return applyOutcome(deps, rows, credentialsFailure(refreshError, platform, deps.settings));
    }
    try {
      batch = await read(credentials);
    } catch (retryError) {
      // The renewed token is saved by accounts; the rows wait for the next read.
      if (retryError === NOT_STARTED) throw retryError;
      const again = networkFailure(retryError, platform, nowMs(), deps.settings, true);
      return applyOutcome(
        deps,
        rows,
        again.kind === 'refresh_token'
          ? { kind: 'requires_reconnect', message: 'The token expired and could not be renewed.' }
          : again,
      );
    }
  }
  const now = deps.clock();
  const pauseUntil = batch.pauseUntil === undefined ? undefined : new Date(batch.pauseUntil);
  // The network's usage headers stopped the batch early: the rows not reached wait for the window.
  await deps.repo.updateMany(
    rows.map((row) => {
      const reading = batch.readings.get(row.platformPostId);
      return reading === undefined && pauseUntil !== undefined
        ? unchanged(row, pauseUntil)
        : fromReading(row, reading, now);
    }),
  );
  if (pauseUntil !== undefined) {
    deps.logger.info(
      { account_id: first.accountId, platform: first.platform, until: pauseUntil },
      'analytics paused: the network says the rate-limit window is used up',
    );
    await deps.repo.pause(first, pauseUntil, 'rate-limit window used up');
  }
}

/**
 * Refreshes rows from their networks, grouped per account (one token, batched calls), skipping
 * accounts paused by a rate limit. Never throws for a row or an account: failures land in the rows'
 * `sync_status`. Once `signal` aborts no account is started any more. Resolves when every account
 * started is done, with the rows no network call was made for (paused accounts', and those of
 * accounts not started): their state is unchanged.
 */
export async function refreshRows(
  deps: RefreshDeps,
  rows: readonly AnalyticsRecord[],
  signal?: AbortSignal,
): Promise<AnalyticsRecord[]> {
  if (rows.length === 0) return [];
  const byAccount = new Map<string, AnalyticsRecord[]>();
  for (const row of rows) {
    const group = byAccount.get(row.accountId);
    if (group === undefined) byAccount.set(row.accountId, [row]);
    else group.push(row);
  }
  const paused = await deps.repo.pausedUntil([...byAccount.keys()], deps.clock());
  const notRead = [...byAccount.entries()]
    .filter(([accountId]) => paused.has(accountId))
    .flatMap(([, accountRows]) => accountRows);
  const queue = [...byAccount.entries()]
    .filter(([accountId]) => !paused.has(accountId))
    .map(([, accountRows]) => accountRows);
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (signal?.aborted === true) {
        notRead.push(...next);
        continue;
      }
      try {
        await refreshAccount(deps, next, signal);
      } catch (error) {
        if (error === NOT_STARTED) {
          notRead.push(...next);
          continue;
        }
        // A database failure mid-account: the rows keep their state and are read again next time.
        deps.logger.error({ err: error, account_id: next[0]?.accountId }, 'analytics refresh of an account failed');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency, queue.length) }, worker));
  return notRead;
}
