import type { ChannelModel } from 'amqplib';
import { systemProbe } from '@svc/contracts';
import type { Broker } from '../src/index.ts';
import { connectBroker, rawConnection, uniqueNamespace, waitFor } from './helpers.ts';

const namespace = uniqueNamespace('stop');
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

describe('stopConsuming', () => {
  it('waits for the in-flight handler to finish and ack before resolving', async () => {
    let started = 0;
    let finished = false;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await broker.consume({
      queue: 'slow',
      messages: [systemProbe],
      handlers: {
        'system.probe.v1': async () => {
          started += 1;
          await held;
          finished = true;
        },
      },
    });
    await broker.publish(systemProbe, { n: 1 }, { orgId: null, requestId: null });
    await waitFor(() => started === 1, 'the handler to start');

    let stopped = false;
    const stopping = broker.stopConsuming({ deadlineMs: 10000 }).then(() => (stopped = true));
    // A few turns of the event loop: stopping must still wait for the held handler.
    for (let i = 0; i < 10; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);

    // Acked, not requeued by the channel close: the queue is empty and nobody consumes any more.
    await broker.publish(systemProbe, { n: 2 }, { orgId: null, requestId: null });
    const channel = await observer.createChannel();
    await waitFor(
      async () => (await channel.checkQueue(broker.queueName('slow'))).messageCount === 1,
      'the second message to wait in the queue',
    );
    const reply = await channel.checkQueue(broker.queueName('slow'));
    expect(reply.consumerCount).toBe(0);
    expect(started).toBe(1);
    await channel.close();
  });
});
