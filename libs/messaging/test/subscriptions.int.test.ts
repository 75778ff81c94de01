import type { Channel, ChannelModel } from 'amqplib';
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
  id: '00000000-0000-4000-8000-000000000001', job_id: '00000000-0000-4000-8000-000000000001', status: 'published' as const,
  account_ids: ['a1'], platforms: ['x' as const], text: 'hi', scheduled_at: null, error_message: null, results: [],
};

describe('event subscriptions', () => {
  it('gives every subscribed event a home before its consumer ever started', async () => {
    // Nothing consumes here: the publisher's broker declares the subscriber queue and its bindings.
    await broker.publish(postPublished, postEvent, { orgId: 'org_1', requestId: null });
    await broker.publish(connectionRevoked, { account_id: 'a1', provider: 'x', platform_account_id: 'p', handle: null, health: 'revoked', reason: 'gone' }, { orgId: 'org_1', requestId: null });
    const queue = names.workQueue('webhook-dispatcher.work');
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);
    expect(Object.keys(eventSubscriptions)).toContain('webhook-dispatcher.work');
  });

  it('still refuses an event nobody subscribes to', async () => {
    await expect(broker.publish(systemProbe, { n: 1 }, { orgId: null, requestId: null })).rejects.toThrow(/No queue is bound/);
  });
});

describe('publishDelayed', () => {
  it('brings a message back to one work queue after its tier, not before', async () => {
    const received: number[] = [];
    await broker.consume({ queue: 'delayed', messages: [systemProbe], handlers: { 'system.probe.v1': async () => void received.push(Date.now()) } });
    const sent = Date.now();
    const tier = await broker.publishDelayed(systemProbe, { n: 2 }, { orgId: null, requestId: null }, { queue: 'delayed', delayMs: 1500 });
    expect(tier).toBe(1000);
    await waitFor(() => received.length === 1, 'the delayed message');
    expect(received[0]! - sent).toBeGreaterThanOrEqual(950);
  });
});
