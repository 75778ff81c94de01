import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { Type, defineMessage, systemBatch } from '@svc/contracts';
import { conflict } from '@svc/errors';
import type { Broker } from '../src/index.ts';
import { connectBroker, rawConnection, uniqueNamespace } from './helpers.ts';

// Calls made in one turn of the event loop travel in one `system.batch.v1` message.
const whoami = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'accounts.whoami.v1',
  service: 'accounts',
  payload: Type.Object({ n: Type.Integer() }),
  reply: Type.Object({
    n: Type.Integer(),
    org: Type.Union([Type.String(), Type.Null()]),
    request: Type.Union([Type.String(), Type.Null()]),
  }),
});
const refuse = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'accounts.refuse.v1',
  service: 'accounts',
  payload: Type.Object({}),
  reply: Type.Object({}),
});
const gated = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'accounts.gated.v1',
  service: 'accounts',
  payload: Type.Object({}),
  reply: Type.Object({}),
});
// Answered by a hand-written server below, which sees the messages as they travel.
const echo = defineMessage({
  kind: 'rpc',
  callers: 'any',
  type: 'legacy.echo.v1',
  service: 'legacy',
  payload: Type.Object({ text: Type.String() }),
  reply: Type.Object({ text: Type.String() }),
});

const namespace = uniqueNamespace('rpcbatch');
let server: Broker;
let client: Broker;
let openGate: () => void = () => undefined;

beforeAll(async () => {
  server = await connectBroker(namespace, 'accounts');
  client = await connectBroker(namespace, 'gateway', { rpcTimeoutMs: 5000 });
  await server.serveRpc({
    messages: [whoami, refuse, gated],
    handlers: {
      'accounts.whoami.v1': async (envelope) => ({
        n: envelope.payload.n,
        org: envelope.org_id,
        request: envelope.request_id,
      }),
      'accounts.refuse.v1': async () => {
        throw conflict('The account is already connected.');
      },
      'accounts.gated.v1': () =>
        new Promise<Record<string, never>>((resolve) => {
          openGate = () => resolve({});
        }),
    },
  });
});

afterAll(async () => {
  await client.close();
  await server.deleteTopology();
  await server.close();
});

describe('RPC calls of one turn in one message', () => {
  it('answers each request of a batch as if it came alone: its own result, error and organization', async () => {
    const calls = Array.from({ length: 70 }, (_, n) =>
      client.rpc(whoami, { n }, { orgId: `org_${n % 3}`, requestId: `req_${n}` }),
    );
    const refused = client.rpc(refuse, {}, { orgId: 'org_9', requestId: 'req_refused' });
    await expect(Promise.all(calls)).resolves.toEqual(
      Array.from({ length: 70 }, (_, n) => ({ n, org: `org_${n % 3}`, request: `req_${n}` })),
    );
    await expect(refused).rejects.toMatchObject({ code: 'conflict', message: 'The account is already connected.' });
  });

  it('does not hold back the answers of a batch behind a slow request in it', async () => {
    const slow = client.rpc(gated, {}, { orgId: 'org_1', requestId: 'req_slow' });
    let slowDone = false;
    void slow.then(() => {
      slowDone = true;
    });
    await expect(client.rpc(whoami, { n: 1 }, { orgId: 'org_1', requestId: 'req_fast' })).resolves.toMatchObject({
      n: 1,
    });
    expect(slowDone).toBe(false);
    openGate();
    await expect(slow).resolves.toEqual({});
  });
});

describe('a server that does not know batches', () => {
  let connection: ChannelModel;
  let channel: Channel;
  const seen: { type: string; requests: number }[] = [];
  let answersBatches = true;

  beforeAll(async () => {
    connection = await rawConnection();
    channel = await connection.createChannel();
    const queue = `${namespace}.legacy.rpc`;
    await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'classic' } });
    const answer = (message: ConsumeMessage, body: unknown) =>
      channel.sendToQueue(String(message.properties.replyTo), Buffer.from(JSON.stringify(body)), {
        correlationId: message.properties.correlationId,
      });
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        const envelope = JSON.parse(message.content.toString()) as {
          type: string;
          message_id: string;
          payload: { text?: string; requests?: { message_id: string; payload: { text: string } }[] };
        };
        const requests = envelope.payload.requests;
        seen.push({ type: envelope.type, requests: requests?.length ?? 1 });
        if (requests === undefined) {
          answer(message, { ok: true, result: { text: `${envelope.payload.text}!` } });
        } else if (answersBatches) {
          answer(message, {
            ok: true,
            result: {
              replies: requests.map((request) => ({
                correlation_id: request.message_id,
                reply: { ok: true, result: { text: `${request.payload.text}!` } },
              })),
            },
          });
        } else {
          answer(message, {
            ok: false,
            error: {
              error: {
                code: 'validation_error',
                message: `legacy does not answer ${envelope.type}.`,
                request_id: envelope.message_id,
              },
            },
          });
        }
        channel.ack(message);
      },
      { noAck: false },
    );
  });

  afterAll(async () => {
    await channel.deleteQueue(`${namespace}.legacy.rpc`);
    await connection.close();
  });

  const burst = (count: number, label: string) =>
    Promise.all(
      Array.from({ length: count }, (_, n) =>
        client.rpc(echo, { text: `${label}${n}` }, { orgId: 'org_1', requestId: null }),
      ),
    );

  it('gets 64 requests a message at most, and a call alone in its turn as a request of its own', async () => {
    await expect(burst(70, 'a')).resolves.toEqual(Array.from({ length: 70 }, (_, n) => ({ text: `a${n}!` })));
    await expect(burst(1, 'b')).resolves.toEqual([{ text: 'b0!' }]);
    expect(seen.splice(0)).toEqual([
      { type: systemBatch.type, requests: 64 },
      { type: systemBatch.type, requests: 6 },
      { type: echo.type, requests: 1 },
    ]);
  });

  it('has its refused batch sent again one request at a time, and gets no batch for a while after', async () => {
    answersBatches = false;
    await expect(burst(3, 'c')).resolves.toEqual([{ text: 'c0!' }, { text: 'c1!' }, { text: 'c2!' }]);
    await expect(burst(2, 'd')).resolves.toEqual([{ text: 'd0!' }, { text: 'd1!' }]);
    expect(seen.splice(0).map((message) => message.type)).toEqual([
      systemBatch.type,
      echo.type,
      echo.type,
      echo.type,
      echo.type,
      echo.type,
    ]);
  });
});
