import type { Channel, ChannelModel } from 'amqplib';

/** One queue as the broker counts it right now: messages ready for delivery and consumers attached. */
export interface QueueDepth {
  queue: string;
  ready: number;
  consumers: number;
}

/**
 * Reads each queue's counts with a passive declare (`checkQueue`), which changes nothing. A queue that
 * is gone (deleted by an operator) closes the channel with a 404: it is left out and the next queue
 * gets a new channel, so one missing queue does not hide the others.
 */
export async function readQueueDepths(model: ChannelModel, queues: readonly string[]): Promise<QueueDepth[]> {
  const depths: QueueDepth[] = [];
  let channel: Channel | undefined;
  try {
    for (const queue of queues) {
      channel ??= await openQuietChannel(model);
      try {
        const { messageCount, consumerCount } = await channel.checkQueue(queue);
        depths.push({ queue, ready: messageCount, consumers: consumerCount });
      } catch {
        channel = undefined;
      }
    }
  } finally {
    await channel?.close().catch(() => undefined);
  }
  return depths;
}

async function openQuietChannel(model: ChannelModel): Promise<Channel> {
  const channel = await model.createChannel();
  // A failed passive declare closes the channel with an error event; the caller handles the rejection.
  channel.on('error', () => undefined);
  return channel;
}
