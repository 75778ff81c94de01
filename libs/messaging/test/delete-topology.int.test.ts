import type { ChannelModel } from 'amqplib';
import { systemProbe } from '@svc/contracts';
import { testHooks } from '../src/internals.ts';
import { connectBroker, rawConnection, uniqueNamespace } from './helpers.ts';

const namespace = uniqueNamespace('cleanup');

/** Whether the queue exists, asked on a channel of its own (a failed check closes its channel). */
async function exists(model: ChannelModel, queue: string): Promise<boolean> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    await channel.checkQueue(queue);
    await channel.close();
    return true;
  } catch {
    return false;
  }
}

describe('deleteTopology', () => {
  it('deletes every queue it declared even when its connection drops in the middle of the cleanup', async () => {
    const broker = await connectBroker(namespace, 'worker');
    const observer = await rawConnection();
    try {
      await broker.consume({
        queue: 'kept',
        messages: [systemProbe],
        handlers: { 'system.probe.v1': async () => undefined },
      });
      const queues = [`${namespace}.kept`, `${namespace}.kept.parking`];
      expect(await Promise.all(queues.map((queue) => exists(observer, queue)))).toEqual([true, true]);
      // As when RabbitMQ closes the connection because a publish raced a queue's deletion: the step in
      // flight is on a connection that will never answer, and the rest must go on the next one.
      const deleting = broker.deleteTopology();
      broker[testHooks].dropConnection();
      await deleting;
      expect(await Promise.all(queues.map((queue) => exists(observer, queue)))).toEqual([false, false]);
    } finally {
      await observer.close();
      await broker.close();
    }
  }, 60_000);
});
