import type { Channel, ChannelModel } from 'amqplib';
import { Type, createEnvelope, defineMessage, systemProbe } from '@svc/contracts';
import { AppError } from '@svc/errors';
import { createNames, PublishError, type Broker } from '../src/index.ts';
import { declareWorkQueue } from '../src/topology.ts';
import { connectBroker, rawConnection, uniqueNamespace } from './helpers.ts';

const namespace = uniqueNamespace('publish');
const names = createNames(namespace);
const unbound = defineMessage({ kind: 'event', type: 'test.nobody.listens.v1', payload: Type.Object({}) });

let raw: ChannelModel;
let channel: Channel;
let broker: Broker;
const published: string[] = [];
const extraQueues = { exchanges: new Set<string>(), queues: new Set<string>() };

beforeAll(async () => {
  raw = await rawConnection();
  broker = await connectBroker(namespace, 'publisher', { metrics: { onPublish: (type) => published.push(type) } });
  channel = await raw.createChannel();
  await declareWorkQueue(
    channel,
    names,
    { queue: 'probe', deliveryLimit: 10, bindings: [{ exchange: names.events, routingKey: systemProbe.type }] },
    extraQueues,
  );
});

afterAll(async () => {
  for (const queue of extraQueues.queues) await channel.deleteQueue(queue);
  await raw.close();
  await broker.deleteTopology();
  await broker.close();
});

const depth = async () => (await channel.checkQueue(names.workQueue('probe'))).messageCount;

describe('publish', () => {
  it('resolves only once the broker has confirmed: the message is already queued', async () => {
    await broker.publish(systemProbe, { n: 1 }, { orgId: 'org_1', requestId: 'req_1' });
    expect(await depth()).toBe(1);
    const message = await channel.get(names.workQueue('probe'), { noAck: true });
    if (!message) throw new Error('expected a message');
    const envelope = JSON.parse(message.content.toString()) as { message_id: string; payload: unknown };
    expect(envelope.payload).toEqual({ n: 1 });
    expect(message.properties).toMatchObject({
      messageId: envelope.message_id,
      type: 'system.probe.v1',
      contentType: 'application/json',
      deliveryMode: 2,
      headers: expect.objectContaining({ 'x-request-id': 'req_1', 'x-org-id': 'org_1' }),
    });
  });

  it('rejects a message that no queue is bound to (mandatory + basic.return)', async () => {
    const attempt = broker.publish(unbound, {}, { orgId: null, requestId: null });
    await expect(attempt).rejects.toBeInstanceOf(PublishError);
    await expect(attempt).rejects.toMatchObject({ reason: 'unroutable', code: 'service_unavailable' });
  });

  it('rejects an invalid payload with validation_error before sending anything', async () => {
    const before = published.length;
    // @ts-expect-error n must be an integer
    const attempt = broker.publish(systemProbe, { n: 'one' }, { orgId: null, requestId: null });
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'validation_error' });
    expect(published.length).toBe(before);
    expect(await depth()).toBe(0);
  });

  it('publishes a stored envelope keeping its message id (outbox relay)', async () => {
    const envelope = createEnvelope(
      systemProbe,
      { n: 2 },
      { orgId: null, requestId: null, messageId: 'outbox-row-42' },
    );
    await broker.publishEnvelope(envelope);
    const message = await channel.get(names.workQueue('probe'), { noAck: true });
    expect(message && message.properties.messageId).toBe('outbox-row-42');
    await expect(broker.publishEnvelope({ ...envelope, type: 'unknown.thing.v1' })).rejects.toMatchObject({
      code: 'validation_error',
    });
    await expect(broker.publishEnvelope({ ...envelope, payload: {} })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });
});
