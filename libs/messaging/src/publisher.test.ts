import { EventEmitter } from 'node:events';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import { createLogger } from '@svc/logger';
import type { ConnectionManager } from './connection-manager.ts';
import { Publisher } from './publisher.ts';

/**
 * A confirm channel whose socket is always "full": every publish returns false (amqplib's
 * backpressure signal) and is confirmed on the next tick; the test decides when 'drain' comes.
 */
class FullChannel extends EventEmitter {
  publish(
    _exchange: string,
    _key: string,
    _content: Buffer,
    _options: unknown,
    confirm: (error: unknown) => void,
  ): boolean {
    setImmediate(() => confirm(null));
    return false;
  }
}

function publisherOn(channel: FullChannel): Publisher {
  const model = {
    createConfirmChannel: () => Promise.resolve(channel as unknown as ConfirmChannel),
  } as unknown as ChannelModel;
  const connection = {
    generation: 1,
    isReady: () => true,
    whenReady: () => Promise.resolve(model),
  } as unknown as ConnectionManager;
  return new Publisher(connection, createLogger({ service: 'publisher-test', level: 'silent' }), {
    maxUnconfirmed: 10,
    waitMs: 1000,
  });
}

describe('Publisher backpressure', () => {
  it('leaves no listener behind per backpressure episode', async () => {
    const channel = new FullChannel();
    const publisher = publisherOn(channel);
    await publisher.publish('', 'q', Buffer.from('{}'), {});
    channel.emit('drain');
    const closeListeners = channel.listenerCount('close');
    const drainListeners = channel.listenerCount('drain');

    for (let episode = 0; episode < 50; episode += 1) {
      await publisher.publish('', 'q', Buffer.from('{}'), {});
      // The next publish waits for this episode's drain; end it as the socket would.
      await new Promise((resolve) => setImmediate(resolve));
      channel.emit('drain');
    }

    expect(channel.listenerCount('close')).toBe(closeListeners);
    expect(channel.listenerCount('drain')).toBe(drainListeners);
  });

  it('ends a backpressure episode when the channel closes instead of draining', async () => {
    const channel = new FullChannel();
    const publisher = publisherOn(channel);
    await publisher.publish('', 'q', Buffer.from('{}'), {});
    expect(channel.listenerCount('drain')).toBe(1);
    channel.emit('close');
    expect(channel.listenerCount('drain')).toBe(0);
    // Without the close ending the episode this publish would wait for a 'drain' that never comes.
    await expect(publisher.publish('', 'q', Buffer.from('{}'), {})).resolves.toBeUndefined();
  });
});
