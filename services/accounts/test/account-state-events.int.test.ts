import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { accountStateChanged, assertEnvelope, assertPayload, type Envelope, type PayloadOf } from '@svc/contracts';
import { createPrismaAdapter } from '@svc/db';
import { ruleExtrasOf } from '@svc/providers';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { AccountsRepository } from '../src/data/accounts.repository.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

type State = PayloadOf<typeof accountStateChanged>;

/**
 * account.state_changed.v1 is written by a trigger on the accounts table (migration
 * 20261122162000_account_state_events) in the changing transaction: these tests change accounts the
 * way the service's code paths do and read what landed in the outbox.
 */
describe('account state events', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  let accounts: AccountsRepository;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'accounts-state', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
    accounts = new AccountsRepository(db);
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  /** The state events of one account, oldest first, each checked against the contract as the relay would. */
  async function events(accountId: string): Promise<Envelope<State>[]> {
    const rows = await db.$queryRawUnsafe<{ envelope: Envelope<State> }[]>(
      "SELECT envelope FROM outbox_messages WHERE type = 'account.state_changed.v1' AND envelope->'payload'->>'account_id' = $1 ORDER BY (envelope->'payload'->>'version')::bigint",
      accountId,
    );
    return rows.map(({ envelope }) => {
      assertEnvelope(envelope);
      assertPayload(accountStateChanged, envelope.payload);
      return envelope;
    });
  }

  const connect = (orgId: string, extras: Record<string, unknown> = {}) =>
    accounts.create({
      id: randomUUID(),
      orgId,
      provider: 'x',
      platformAccountId: randomUUID(),
      handle: '@first',
      connectionType: 'byok',
      health: 'active',
      accessToken: 'v1.sealed',
      extras: extras as object,
    });

  it('announces a connect with the organization, network, handle, health and rule extras only', async () => {
    const account = await connect('org_state', { subscription_type: 'Premium', page_id: 'p1', username: 'u' });
    const [event, ...more] = await events(account.id);
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({
      type: 'account.state_changed.v1',
      org_id: 'org_state',
      payload: {
        account_id: account.id,
        provider: 'x',
        handle: '@first',
        health: 'active',
        rule_extras: { subscription_type: 'Premium' },
        deleted: false,
      },
    });
    expect(event!.payload.version).toBeGreaterThan(0);
  });

  it('announces health and handle changes with a growing version, and nothing for a token refresh', async () => {
    const account = await connect('org_state');
    await accounts.update(account.id, {
      accessToken: 'v1.other',
      tokenExpiresAt: new Date(Date.now() + 3600_000),
      lastRefreshedAt: new Date(),
    });
    await accounts.update(account.id, { health: 'requires_reconnect' });
    await accounts.update(account.id, { health: 'active', handle: '@renamed' });
    await db.$executeRawUnsafe("UPDATE accounts SET health = 'revoked' WHERE id = $1::uuid", account.id);
    const states = (await events(account.id)).map((event) => event.payload);
    expect(states.map((state) => [state.health, state.handle])).toEqual([
      ['active', '@first'],
      ['requires_reconnect', '@first'],
      ['active', '@renamed'],
      ['revoked', '@renamed'],
    ]);
    expect(new Set(states.map((state) => state.version)).size).toBe(4);
  });

  it('announces the bulk `expiring` pass and a change of the rule extras', async () => {
    const account = await accounts.create({
      id: randomUUID(),
      orgId: 'org_state',
      provider: 'x',
      platformAccountId: randomUUID(),
      connectionType: 'byok',
      health: 'active',
      accessToken: 'v1.sealed',
      tokenExpiresAt: new Date(Date.now() + 60_000),
    });
    expect(await accounts.markExpiring(new Date(Date.now() + 3600_000))).toBeGreaterThanOrEqual(1);
    await accounts.update(account.id, { extras: { subscription_type: 'Basic' } });
    const states = (await events(account.id)).map((event) => event.payload);
    expect(states.map((state) => [state.health, state.rule_extras])).toEqual([
      ['active', {}],
      ['expiring', {}],
      ['expiring', { subscription_type: 'Basic' }],
    ]);
  });

  it('announces a delete as final, with the last state', async () => {
    const account = await connect('org_state');
    expect(await accounts.delete('org_state', account.id)).toBe(true);
    const last = (await events(account.id)).at(-1)!;
    expect(last.payload).toMatchObject({ account_id: account.id, deleted: true, health: 'active' });
  });

  it('carries exactly the extras ruleExtrasOf gives (the trigger keeps its own copy of the keys)', async () => {
    const extras = Object.fromEntries(
      [
        'subscription_type',
        'text_limit',
        'tt_privacy_level_options',
        'tt_comment_disabled',
        'tt_duet_disabled',
        'tt_stitch_disabled',
        'tt_max_video_post_duration_sec',
        'page_id',
        'ig_user_id',
        'author_urn',
        'username',
        'tt_unknown',
      ].map((key, index) => [key, `v${index}`]),
    );
    const account = await connect('org_state', { ...extras, numeric: 5 });
    const [event] = await events(account.id);
    expect(event!.payload.rule_extras).toEqual(ruleExtrasOf(extras));
  });
});
