import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { connect } from 'amqplib';
import { billingPlanChanged, createEnvelope, credentialsGet, postQueued, postsQueued } from '@svc/contracts';
import { createLogger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { TEST_AMQP_URL, uniqueNamespace } from '@svc/testing';
import { deployedServices, repoRoot } from './deploy-facts.ts';

// deploy/rabbitmq/provision-users.sh against the real local broker, with a unique user prefix and
// namespace so it never touches another run's users.
const namespace = uniqueNamespace('users');
const userPrefix = `${namespace}-`;
const services = deployedServices;
const passwords = Object.fromEntries(services.map((service) => [service, randomBytes(12).toString('hex')]));
const node = () => execFileSync('rabbitmqctl', ['-q', 'eval', 'node().'], { encoding: 'utf8' }).trim();

function urlFor(service: string): string {
  const url = new URL(TEST_AMQP_URL);
  url.username = `${userPrefix}${service}`;
  url.password = passwords[service]!;
  return url.toString();
}

const brokers: Broker[] = [];
async function brokerAs(service: string, callerUserPrefix?: string): Promise<Broker> {
  const broker = await Broker.connect({
    url: urlFor(service),
    namespace,
    service,
    logger: createLogger({ service, level: 'silent' }),
    callerUserPrefix,
    rpcTimeoutMs: 3000,
  });
  brokers.push(broker);
  return broker;
}

beforeAll(() => {
  const env: Record<string, string | undefined> = {
    ...process.env,
    RABBITMQ_NODE: node(),
    AMQP_PREFIX: namespace,
    BROKER_USER_PREFIX: userPrefix,
  };
  for (const service of services) env[`AMQP_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`] = passwords[service];
  try {
    execFileSync('sh', [join(repoRoot, 'deploy/rabbitmq/provision-users.sh')], {
      env,
      stdio: 'pipe',
      timeout: 240_000,
    });
  } catch (error) {
    throw new Error(
      `provision-users.sh failed (needs rabbitmqctl and the local RabbitMQ: rabbitmq-server -detached): ${String((error as { stderr?: Buffer }).stderr ?? error)}`,
    );
  }
  // Two rabbitmqctl calls per service, each starting an Erlang VM: seconds each on a loaded machine.
}, 300_000);

afterAll(async () => {
  for (const broker of brokers.reverse()) {
    await broker.deleteTopology().catch(() => undefined);
    await broker.close();
  }
  // Every user, even after a failed provisioning left some uncreated (spawnSync does not throw).
  for (const service of services) spawnSync('rabbitmqctl', ['-q', 'delete_user', `${userPrefix}${service}`]);
}, 300_000);

describe('one broker user per service (deploy/rabbitmq/provision-users.sh)', () => {
  it('lets each service run its own topology and answer RPC, and only the allowed callers get credentials', async () => {
    const accounts = await brokerAs('accounts', userPrefix);
    await accounts.serveRpc({
      messages: [credentialsGet],
      handlers: {
        'accounts.credentials_get.v1': async (env) => ({
          account_id: env.payload.account_id,
          provider: 'x' as const,
          access_token: 'tok',
          extras: {},
          token_expires_at: null,
        }),
      },
    });
    const publisher = await brokerAs('publisher');
    const gateway = await brokerAs('gateway');
    await expect(
      publisher.rpc(credentialsGet, { account_id: 'a1' }, { orgId: 'org_1', requestId: 'r' }),
    ).resolves.toMatchObject({ access_token: 'tok' });
    await expect(
      gateway.rpc(credentialsGet, { account_id: 'a1' }, { orgId: 'org_1', requestId: 'r' }),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('lets every service open the broker as its runtime does: the shared exchanges and the retry tiers', async () => {
    // Broker.connect declares them before anything else; the dashboard does nothing more with it.
    for (const service of services) expect((await brokerAs(service)).isConnected()).toBe(true);
  });

  it("lets a service publish its events, declaring its subscribers' queues on the way", async () => {
    const billing = await brokerAs('billing');
    await expect(
      billing.publish(
        billingPlanChanged,
        { plan: 'pro', status: 'active', limits: { connected_accounts: 100, posts_per_month: 10_000 }, revision: 1 },
        { orgId: 'org_1', requestId: 'r' },
      ),
    ).resolves.toBeUndefined();
    // post.queued goes to the webhook dispatcher, alone (a previous release) or carried with others.
    const publisher = await brokerAs('publisher');
    const job = '00000000-0000-4000-8000-000000000001';
    const queued = {
      id: job,
      job_id: job,
      status: 'queued' as const,
      account_ids: ['a1'],
      platforms: ['x' as const],
      text: 't',
      scheduled_at: null,
      error_message: null,
      results: [],
    };
    await expect(publisher.publish(postQueued, queued, { orgId: 'org_1', requestId: 'r' })).resolves.toBeUndefined();
    const carried = createEnvelope(postQueued, queued, { orgId: 'org_1', requestId: 'r' });
    await expect(
      publisher.publish(
        postsQueued,
        { events: [{ ...carried, type: 'post.queued.v1', org_id: 'org_1' }] },
        { orgId: 'org_1', requestId: null },
      ),
    ).resolves.toBeUndefined();
  });

  it("refuses a service that consumes or declares another service's queue", async () => {
    const connection = await connect(urlFor('gateway'));
    try {
      const reading = await connection.createChannel();
      const refusedRead = new Promise<Error>((resolve) => reading.once('error', resolve));
      await reading.consume(`${namespace}.accounts.rpc`, () => undefined).catch(() => undefined);
      expect((await refusedRead).message).toMatch(/ACCESS_REFUSED/);
      const declaring = await connection.createChannel();
      const refusedDeclare = new Promise<Error>((resolve) => declaring.once('error', resolve));
      await declaring.assertQueue(`${namespace}.publisher.work`).catch(() => undefined);
      expect((await refusedDeclare).message).toMatch(/ACCESS_REFUSED/);
    } finally {
      await connection.close().catch(() => undefined);
    }
  });
});
