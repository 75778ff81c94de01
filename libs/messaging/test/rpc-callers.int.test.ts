import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'amqplib';
import { Type, createEnvelope, defineMessage } from '@svc/contracts';
import type { Broker } from '../src/index.ts';
import { AMQP_URL, connectBroker, uniqueNamespace } from './helpers.ts';

// One broker user per service (docs/security.md): RabbitMQ validates the `user-id` a publish
// carries, so the accounts service can tell which service asks for credentials.
const secretLike = defineMessage({
  kind: 'rpc',
  type: 'accounts.secret_like.v1',
  service: 'accounts',
  callers: ['publisher'],
  payload: Type.Object({}),
  reply: Type.Object({ ok: Type.Boolean() }),
});

const namespace = uniqueNamespace('callers');
const prefix = `${namespace.replace(/\./g, '-')}-`;
const password = randomBytes(12).toString('hex');
const users = ['accounts', 'publisher', 'gateway'].map((service) => `${prefix}${service}`);

function rabbitmqctl(...args: string[]): void {
  try {
    execFileSync('rabbitmqctl', ['-q', ...args], { stdio: 'pipe', timeout: 30_000 });
  } catch (error) {
    throw new Error(
      `rabbitmqctl ${args[0]} failed (this test manages broker users on the local RabbitMQ: start it with rabbitmq-server -detached): ${String(error)}`,
    );
  }
}

function urlFor(user: string): string {
  const url = new URL(AMQP_URL);
  url.username = encodeURIComponent(user);
  url.password = password;
  return url.toString();
}

let server: Broker;
let publisher: Broker;
let gateway: Broker;

beforeAll(async () => {
  for (const user of users) {
    rabbitmqctl('add_user', user, password);
    rabbitmqctl('set_permissions', '-p', '/', user, '.*', '.*', '.*');
  }
  server = await connectBroker(namespace, 'accounts', { url: urlFor(`${prefix}accounts`), callerUserPrefix: prefix });
  publisher = await connectBroker(namespace, 'publisher', { url: urlFor(`${prefix}publisher`) });
  gateway = await connectBroker(namespace, 'gateway', { url: urlFor(`${prefix}gateway`) });
  await server.serveRpc({
    messages: [secretLike],
    handlers: { 'accounts.secret_like.v1': async () => ({ ok: true }) },
  });
}, 60_000);

afterAll(async () => {
  await publisher?.close();
  await gateway?.close();
  await server?.deleteTopology();
  await server?.close();
  for (const user of users) rabbitmqctl('delete_user', user);
}, 60_000);

describe('RPC callers verified by broker user', () => {
  it('answers a declared caller', async () => {
    await expect(publisher.rpc(secretLike, {}, { orgId: 'org_1', requestId: 'r1' })).resolves.toEqual({ ok: true });
  });

  it('refuses every other service with forbidden', async () => {
    await expect(gateway.rpc(secretLike, {}, { orgId: 'org_1', requestId: 'r2' })).rejects.toMatchObject({
      code: 'forbidden',
      message: 'accounts.secret_like.v1 may only be called by publisher.',
    });
  });

  it('cannot be fooled by a forged user-id (RabbitMQ refuses the publish) or by none', async () => {
    const queue = `${namespace}.accounts.rpc`;
    const envelope = Buffer.from(JSON.stringify(createEnvelope(secretLike, {}, { orgId: 'org_1', requestId: 'raw' })));
    const connection = await connect(urlFor(`${prefix}gateway`));
    try {
      const forging = await connection.createChannel();
      const closed = new Promise<Error>((resolve) => forging.once('error', resolve));
      forging.publish('', queue, envelope, { userId: `${prefix}publisher` });
      expect((await closed).message).toMatch(/PRECONDITION_FAILED/);

      const plain = await connection.createChannel();
      let answered: (reply: { ok: boolean; error?: { error: { code: string } } }) => void = () => undefined;
      const reply = new Promise<{ ok: boolean; error?: { error: { code: string } } }>(
        (resolve) => (answered = resolve),
      );
      // The consumer is registered once consume resolves: the request goes out after that.
      await plain.consume(
        'amq.rabbitmq.reply-to',
        (message) => answered(JSON.parse(message!.content.toString()) as never),
        { noAck: true },
      );
      plain.publish('', queue, envelope, { replyTo: 'amq.rabbitmq.reply-to', correlationId: 'no-user-id' });
      expect(await reply).toMatchObject({ ok: false, error: { error: { code: 'forbidden' } } });
    } finally {
      await connection.close().catch(() => undefined);
    }
  });
});
