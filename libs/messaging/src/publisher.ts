import { randomUUID } from 'node:crypto';
import type { ConfirmChannel, Message, Options } from 'amqplib';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { ConnectionManager } from './connection-manager.ts';

export type PublishFailure = 'unroutable' | 'nacked' | 'channel_closed';

/** Retryable by design: the caller (outbox relay) keeps the message and tries again later. */
export class PublishError extends AppError {
  readonly reason: PublishFailure;

  constructor(reason: PublishFailure, message: string, cause?: unknown) {
    super('service_unavailable', message, { retryable: true, cause });
    this.name = 'PublishError';
    this.reason = reason;
  }
}

const PUBLISH_ID_HEADER = 'x-publish-id';

/**
 * One confirm channel per connection. A publish resolves only on the broker's ack, and a
 * `basic.return` (unroutable `mandatory` message) counts as a failure even though RabbitMQ acks it
 * afterwards (docs/reliability.md, "Broker facts behind these rules"). The return arrives before
 * the ack on the same channel, so returned publish ids are remembered until their confirm callback
 * runs.
 */
export class Publisher {
  private channel: Promise<ConfirmChannel> | undefined;
  private channelGeneration = 0;
  private inFlight = 0;
  private readonly slotWaiters: (() => void)[] = [];
  private readonly returned = new Set<string>();
  private drain: Promise<void> | undefined;
  private readonly connection: ConnectionManager;
  private readonly logger: Logger;
  private readonly limits: { maxUnconfirmed: number; waitMs: number };

  constructor(connection: ConnectionManager, logger: Logger, limits: { maxUnconfirmed: number; waitMs: number }) {
    this.connection = connection;
    this.logger = logger;
    this.limits = limits;
  }

  async publish(exchange: string, routingKey: string, content: Buffer, options: Options.Publish): Promise<void> {
    await this.acquireSlot();
    try {
      const channel = await this.getChannel();
      if (this.drain) await this.drain;
      const publishId = randomUUID();
      const headers = { ...options.headers, [PUBLISH_ID_HEADER]: publishId };
      await new Promise<void>((resolve, reject) => {
        const written = channel.publish(
          exchange,
          routingKey,
          content,
          { ...options, headers, mandatory: true },
          (error: unknown) => {
            if (this.returned.delete(publishId)) {
              reject(
                new PublishError(
                  'unroutable',
                  `No queue is bound to routing key "${routingKey}" on exchange "${exchange || '(default)'}"; the message was not delivered.`,
                ),
              );
            } else if (error) {
              const closed = error instanceof Error && /closed/i.test(error.message);
              reject(
                new PublishError(
                  closed ? 'channel_closed' : 'nacked',
                  closed
                    ? 'The channel closed before RabbitMQ confirmed the message.'
                    : 'RabbitMQ refused the message (nack).',
                  error,
                ),
              );
            } else resolve();
          },
        );
        // amqplib keeps the message buffered when the socket is full; waiting for 'drain' keeps memory bounded.
        if (!written && !this.drain) this.drain = this.untilDrained(channel);
      });
    } finally {
      this.releaseSlot();
    }
  }

  /**
   * One backpressure episode: ends on 'drain', or on 'close' (a closed channel never drains). Both
   * listeners are removed whichever fires: a 'close' listener left per episode once piled up on a
   * long-lived channel (MaxListenersExceededWarning, and a leak under sustained load).
   */
  private untilDrained(channel: ConfirmChannel): Promise<void> {
    return new Promise<void>((resolve) => {
      const settle = () => {
        channel.off('drain', settle);
        channel.off('close', settle);
        this.drain = undefined;
        resolve();
      };
      channel.on('drain', settle);
      channel.on('close', settle);
    });
  }

  /** Waits for every outstanding confirm on the current channel. */
  async waitForConfirms(): Promise<void> {
    const channel = await this.channel?.catch(() => undefined);
    await channel?.waitForConfirms().catch(() => undefined);
  }

  private getChannel(): Promise<ConfirmChannel> {
    if (this.channel && this.channelGeneration === this.connection.generation && this.connection.isReady()) {
      return this.channel;
    }
    const opening = this.openChannel();
    this.channel = opening;
    opening.catch(() => {
      if (this.channel === opening) this.channel = undefined;
    });
    return opening;
  }

  private async openChannel(): Promise<ConfirmChannel> {
    const model = await this.connection.whenReady(this.limits.waitMs);
    this.channelGeneration = this.connection.generation;
    const channel = await model.createConfirmChannel();
    const current = this.channel;
    channel.on('error', (error: Error) => this.logger.warn({ err: error }, 'publisher channel error'));
    channel.on('return', (message: Message) => {
      const id: unknown = message.properties.headers?.[PUBLISH_ID_HEADER];
      if (typeof id === 'string') this.returned.add(id);
    });
    channel.once('close', () => {
      if (this.channel === current) this.channel = undefined;
    });
    return channel;
  }

  private async acquireSlot(): Promise<void> {
    while (this.inFlight >= this.limits.maxUnconfirmed) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
    this.inFlight += 1;
  }

  private releaseSlot(): void {
    this.inFlight -= 1;
    this.slotWaiters.shift()?.();
  }
}
