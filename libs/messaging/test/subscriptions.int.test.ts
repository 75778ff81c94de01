import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { connectionRevoked, eventSubscriptions, postPublished, systemProbe } from '@svc/contracts';
import { createNames, type Broker } from '../src/index.ts';
import { connectBroker, rawConnection, uniqueNamespace, waitFor } from './helpers.ts';

const namespace = uniqueNamespace('subs');
const names = createNames(namespace);
let raw: ChannelModel;
let channel: Channel;
let broker: Broker;

beforeAll(async () => {
  raw = await rawConnection();
  channel = await raw.createChannel();
  broker = await connectBroker(namespace, 'publisher');
});

afterAll(async () => {
  await raw.close();
  await broker.deleteTopology();
  await broker.close();
});

const postEvent = {
  id: '00000000-0000-4000-8000-000000000001',
  job_id: '00000000-0000-4000-8000-000000000001',
  status: 'published' as const,
  account_ids: ['a1'],
  platforms: ['x' as const],
  text: 'hi',
  scheduled_at: null,
  error_message: null,
  results: [],
};

describe('event subscriptions', () => {
  it('gives every subscribed event a home before its consumer ever started', async () => {
    // Nothing consumes here: the publisher's broker declares the subscriber queue and its bindings.
    await broker.publish(postPublished, postEvent, { orgId: 'org_1', requestId: null });
    await broker.publish(
      connectionRevoked,
      { account_id: 'a1', provider: 'x', platform_account_id: 'p', handle: null, health: 'revoked', reason: 'gone' },
      { orgId: 'org_1', requestId: null },
    );
    const queue = names.workQueue('webhook-dispatcher.work');
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);
    expect(Object.keys(eventSubscriptions)).toContain('webhook-dispatcher.work');
  });

  it('removes the binding of an event a queue retired, and still handles one already in it', async () => {
    const handled: number[] = [];
    const handlers = {
      'system.probe.v1': async (envelope: { payload: { n: number } }) => void handled.push(envelope.payload.n),
    };
    // A namespace of its own: the cleanup deletes the exchanges too.
    const own = uniqueNamespace('retired');
    const sender = await connectBroker(own, 'publisher');
    // The previous release subscribed, and left a message behind while nothing consumed it.
    const before = await connectBroker(own, 'retiring');
    await before.consume({ queue: 'retiring.work', messages: [systemProbe], handlers });
    await before.stopConsuming();
    await sender.publish(systemProbe, { n: 1 }, { orgId: null, requestId: null });
    await before.close();
    const after = await connectBroker(own, 'retiring');
    try {
      await after.consume({ queue: 'retiring.work', messages: [systemProbe], retired: [systemProbe], handlers });
      await waitFor(() => handled.length === 1, 'the message left in the queue');
      await expect(sender.publish(systemProbe, { n: 2 }, { orgId: null, requestId: null })).rejects.toThrow(
        /No queue is bound/,
      );
      expect(handled).toEqual([1]);
    } finally {
      await after.deleteTopology({ queues: ['retiring.work'] });
      await after.close();
      await sender.deleteTopology();
      await sender.close();
    }
  });

  it('still refuses an event nobody subscribes to', async () => {
    await expect(broker.publish(systemProbe, { n: 1 }, { orgId: null, requestId: null })).rejects.toThrow(
      /No queue is bound/,
    );
  });
});

describe('publishDelayed', () => {
  it('brings a message back to one work queue after its tier, not before', async () => {
    // A plain queue under the work queue's name stands in for its consumer, so the copy that comes
    // back can be read with the broker's own dead-letter record (x-death), which says where it waited.
    const workQueue = names.workQueue('delayed');
    await channel.assertQueue(workQueue, { exclusive: true });
    const received: ConsumeMessage[] = [];
    await channel.consume(workQueue, (message) => void (message && received.push(message)), { noAck: true });
    const tier = await broker.publishDelayed(
      systemProbe,
      { n: 2 },
      { orgId: null, requestId: null },
      { queue: 'delayed', delayMs: 1500 },
    );
    expect(tier).toBe(1000);
    await waitFor(() => received.length === 1, 'the delayed message');
    const [message] = received;
    expect(JSON.parse(message!.content.toString())).toMatchObject({ type: 'system.probe.v1', payload: { n: 2 } });
    // It came back only by expiring from the 1000 ms tier queue, once, not straight from the publish.
    expect(message!.properties.headers?.['x-death']).toEqual([
      expect.objectContaining({ queue: names.retryQueue(1000), reason: 'expired', count: 1 }),
    ]);
    // And that tier queue holds its messages 1000 ms: declaring it with any other TTL would be refused
    // as inequivalent (406), which would close this channel.
    const check = await raw.createChannel();
    await check.assertQueue(names.retryQueue(1000), {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
        'x-message-ttl': 1000,
        'x-dead-letter-exchange': '',
      },
    });
    await check.close();
  });
});
