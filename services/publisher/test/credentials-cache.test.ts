import { AppError } from '@svc/errors';
import type { AccountCredentials, AccountsClient } from '../src/domain/accounts-client.ts';
import { CredentialsCache } from '../src/domain/credentials-cache.ts';

/** A fake accounts service: counts the calls, answers token `t<n>` for the n-th call, or fails. */
function fakeAccounts(options: { expiresInMs?: number; fail?: () => Error | undefined } = {}) {
  const calls: { orgId: string; accountId: string; forceRefresh: boolean }[] = [];
  let clock = 1_000_000;
  const client: AccountsClient = {
    lookup: async () => [],
    credentials: async (orgId, accountId, forceRefresh) => {
      calls.push({ orgId, accountId, forceRefresh });
      await new Promise((resolve) => setImmediate(resolve));
      const error = options.fail?.();
      if (error !== undefined) throw error;
      const expires = options.expiresInMs === undefined ? null : new Date(clock + options.expiresInMs).toISOString();
      return {
        account_id: accountId,
        provider: 'x',
        access_token: `t${calls.length}`,
        extras: {},
        token_expires_at: expires,
      } satisfies AccountCredentials;
    },
  };
  return { client, calls, now: () => clock, advance: (ms: number) => (clock += ms) };
}

function cached(fake: ReturnType<typeof fakeAccounts>, ttlMs = 30_000, maxEntries = 100) {
  const cache = new CredentialsCache({ ttlMs, maxEntries, now: fake.now });
  return { cache, client: cache.wrap(fake.client) };
}

const token = async (client: AccountsClient, accountId = 'acc_1', orgId = 'org_1', force = false) =>
  (await client.credentials(orgId, accountId, force, null)).access_token;

describe('CredentialsCache (the token a delivery reuses instead of asking accounts)', () => {
  it('reuses an answer within its time to live, and asks again after it', async () => {
    const fake = fakeAccounts();
    const { client } = cached(fake);
    expect(await token(client)).toBe('t1');
    fake.advance(29_000);
    expect(await token(client)).toBe('t1');
    fake.advance(2_000);
    expect(await token(client)).toBe('t2');
    expect(fake.calls).toHaveLength(2);
  });

  it('shares one call among concurrent deliveries of the same account', async () => {
    const fake = fakeAccounts();
    const { client } = cached(fake);
    expect(await Promise.all([token(client), token(client), token(client)])).toEqual(['t1', 't1', 't1']);
    expect(fake.calls).toHaveLength(1);
  });

  it('keeps organizations apart: the same account id in another organization is asked for', async () => {
    const fake = fakeAccounts();
    const { client } = cached(fake);
    expect(await token(client, 'acc_1', 'org_1')).toBe('t1');
    expect(await token(client, 'acc_1', 'org_2')).toBe('t2');
    expect(fake.calls.map((call) => call.orgId)).toEqual(['org_1', 'org_2']);
  });

  it('drops an account at once when told (an account.state_changed event), and only that account', async () => {
    const fake = fakeAccounts();
    const { cache, client } = cached(fake);
    await token(client, 'acc_1');
    await token(client, 'acc_2');
    cache.forget('org_1', 'acc_1');
    expect(await token(client, 'acc_1')).toBe('t3');
    expect(await token(client, 'acc_2')).toBe('t2');
  });

  it('always asks on a forced refresh, and reuses the refreshed token after it', async () => {
    const fake = fakeAccounts();
    const { client } = cached(fake);
    await token(client);
    expect(await token(client, 'acc_1', 'org_1', true)).toBe('t2');
    expect(await token(client)).toBe('t2');
    expect(fake.calls.map((call) => call.forceRefresh)).toEqual([false, true]);
  });

  it('never keeps a failure: every waiting delivery gets it, the next one asks again', async () => {
    let failing = true;
    const fake = fakeAccounts({ fail: () => (failing ? new AppError('conflict', 'needs reconnecting') : undefined) });
    const { cache, client } = cached(fake);
    const answers = await Promise.allSettled([token(client), token(client)]);
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
    expect(cache.size).toBe(0);
    failing = false;
    expect(await token(client)).toBe('t2');
    expect(fake.calls).toHaveLength(2);
  });

  it('does not reuse a token within a minute of its expiry', async () => {
    const fake = fakeAccounts({ expiresInMs: 90_000 });
    const { client } = cached(fake, 60_000);
    await token(client);
    fake.advance(29_000);
    expect(await token(client)).toBe('t1');
    fake.advance(2_000); // 59 s left on the token: accounts refreshes such a token, so ask it
    expect(await token(client)).toBe('t2');
  });

  it('forgets the oldest account past its size', async () => {
    const fake = fakeAccounts();
    const { cache, client } = cached(fake, 30_000, 2);
    await token(client, 'acc_1');
    await token(client, 'acc_2');
    await token(client, 'acc_3');
    expect(cache.size).toBe(2);
    expect(await token(client, 'acc_3')).toBe('t3');
    expect(await token(client, 'acc_1')).toBe('t4');
  });

  it('with a time to live of 0, every delivery asks accounts', async () => {
    const fake = fakeAccounts();
    const { client } = cached(fake, 0);
    await token(client);
    await token(client);
    expect(fake.calls).toHaveLength(2);
  });
});
