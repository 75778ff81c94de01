import type { ChannelModel } from 'amqplib';
import { systemProbe } from '@svc/contracts';
import { createNames, type Broker } from '../src/index.ts';
import { declareWorkQueue } from '../src/topology.ts';
import { connectBroker, rawConnection, uniqueNamespace, waitFor } from './helpers.ts';

const namespace = uniqueNamespace('redelivery');
const names = createNames(namespace);
let broker: Broker;
let observer: ChannelModel;

beforeAll(async () => {
  observer = await rawConnection();
  broker = await connectBroker(namespace, 'worker');
});

afterAll(async () => {
  await observer.close();
  await broker.deleteTopology();
  await broker.close();
});

describe('a consumer that dies before acking', () => {
  it('loses nothing: the message is redelivered and the inbox check makes the side effect happen once', async () => {
    // Stand-in for the inbox table: processed message ids, recorded together with the side effect.
    const inbox = new Set<string>();
    let sideEffects = 0;
    const handleOnce = (messageId: string) => {
      if (inbox.has(messageId)) return;
      inbox.add(messageId);
      sideEffects += 1;
    };

    // Consumer A: a raw connection that does the work, then dies before its ack (a pod killed mid-flight).
    const dying = await rawConnection();
    const channelA = await dying.createChannel();
    const queue = await declareWorkQueue(
      channelA,
      names,
      { queue: 'inbox', deliveryLimit: 10, bindings: [{ exchange: names.events, routingKey: systemProbe.type }] },
      { exchanges: new Set(), queues: new Set() },
    );
    await channelA.prefetch(1);
    let receivedByA = false;
    await channelA.consume(queue, (message) => {
      if (!message) return;
      handleOnce(String(message.properties.messageId));
      receivedByA = true;
    });

    await broker.publish(systemProbe, { n: 7 }, { orgId: 'org_1', requestId: null });
    await waitFor(() => receivedByA, 'consumer A to receive the message');
    await dying.close();

    const deliveries: { messageId: string; redelivered: boolean }[] = [];
    await broker.consume({
      queue: 'inbox',
      messages: [systemProbe],
      handlers: {
        'system.probe.v1': async (envelope, context) => {
          deliveries.push({ messageId: envelope.message_id, redelivered: context.redelivered });
          handleOnce(envelope.message_id);
        },
      },
    });

    await waitFor(() => deliveries.length === 1, 'consumer B to receive the redelivery');
    expect(deliveries[0]!.redelivered).toBe(true);
    expect(sideEffects).toBe(1);
    const check = await observer.createChannel();
    await waitFor(async () => (await check.checkQueue(queue)).messageCount === 0, 'the queue to be empty');
    await check.close();
  });
});
