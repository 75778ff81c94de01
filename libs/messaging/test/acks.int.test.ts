import type { Channel, ChannelModel, Message } from 'amqplib';
import { systemProbe } from '@svc/contracts';
import { createNames, type Broker } from '../src/index.ts';
import { connectBroker, rawConnection, uniqueNamespace, waitFor } from './helpers.ts';

const namespace = uniqueNamespace('acks');
const names = createNames(namespace);
let publisher: Broker;
let worker: Broker | undefined;
let observer: ChannelModel;

beforeAll(async () => {
  observer = await rawConnection();
  publisher = await connectBroker(namespace, 'sender');
});

afterAll(async () => {
  await worker?.close();
  // The worker's queues outlive its connection (closed by the test): deleted here.
  const cleanup = await observer.createChannel();
  for (const queue of [names.workQueue('acks'), names.parkingQueue('acks')]) await cleanup.deleteQueue(queue);
  await observer.close();
  await publisher.deleteTopology();
  await publisher.close();
});

/**
 * The acks of deliveries that finish together leave as one `multiple` ack (AckCoalescer), and one
 * still running is never covered by it: closing the consumer's connection returns nothing to the
 * queue once every handler is done, and nothing was handled twice.
 */
describe('acks of a work queue', () => {
  it('go together for deliveries finished at once, never past one still running, and settle every delivery once', async () => {
    const channelProto = Object.getPrototypeOf(await observer.createChannel()) as Channel;
    const ackSpy = jest.spyOn(channelProto, 'ack');
    let releaseSlow: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    let releaseOthers: () => void = () => undefined;
    const others = new Promise<void>((resolve) => {
      releaseOthers = resolve;
    });
    const handled = new Map<number, number>();
    worker = await connectBroker(namespace, 'worker');
    await worker.consume({
      queue: 'acks',
      messages: [systemProbe],
      prefetch: 40,
      handlers: {
        'system.probe.v1': async (envelope) => {
          const n = (envelope.payload as { n: number }).n;
          handled.set(n, (handled.get(n) ?? 0) + 1);
          // The last to arrive (delivery tag 40) runs on; the others finish together once it is here.
          if (handled.size < 40) return others;
          releaseOthers();
          return slow;
        },
      },
    });
    await Promise.all(
      Array.from({ length: 40 }, (_, n) => publisher.publish(systemProbe, { n }, { orgId: 'org_1', requestId: null })),
    );
    await waitFor(() => handled.size === 40, 'every message to be handled');
    await waitFor(() => ackSpy.mock.calls.length > 0, 'the finished deliveries to be acked');
    // One ack for the 39 that finished together; the one still running is not covered by it.
    expect(ackSpy.mock.calls.map(([message, multiple]) => [(message as Message).fields.deliveryTag, multiple])).toEqual(
      [[39, true]],
    );
    releaseSlow();
    await waitFor(() => ackSpy.mock.calls.length === 2, 'the slow delivery to be acked');
    expect(ackSpy.mock.calls[1]![1]).toBe(true);
    expect((ackSpy.mock.calls[1]![0] as Message).fields.deliveryTag).toBe(40);
    // Close the connection: anything left unacked would go back to the queue.
    await worker.close();
    worker = undefined;
    const check = await observer.createChannel();
    expect((await check.checkQueue(names.workQueue('acks'))).messageCount).toBe(0);
    await check.close();
    expect([...handled.values()].every((times) => times === 1)).toBe(true);
    ackSpy.mockRestore();
  });
});
