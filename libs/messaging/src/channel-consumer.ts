import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@svc/logger';

/**
 * The channel lifecycle every consumer shares (work queues and the RPC server): one channel per
 * consumer, opened once per connection generation, reopened when the server closes it alone,
 * cancelled on stop, with in-flight handlers tracked so a stop can wait for them. Subclasses declare
 * their queue and handle deliveries; they settle a delivery only on the channel that is still live.
 */
export abstract class ChannelConsumer {
  protected channel: Channel | undefined;
  protected stopped = false;
  private consumerTag: string | undefined;
  private starting: { generation: number; done: Promise<void> } | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  protected constructor(
    protected readonly logger: Logger,
    /** Names the consumer in log lines, e.g. its queue. */
    private readonly label: string,
  ) {}

  /** Declares the queue (and QoS) on a fresh channel; returns the queue to consume. */
  protected abstract declare(channel: Channel): Promise<string>;

  /** Handles one delivery; it must settle it itself. Errors reaching here are bugs, and are logged. */
  protected abstract handle(channel: Channel, message: ConsumeMessage): Promise<void>;

  /** The server closed this consumer's channel while the connection lives on (e.g. a 406). */
  protected abstract channelLost(): void;

  /** Idempotent per connection generation: setup after a reconnect and a concurrent call may both run it. */
  start(model: ChannelModel, generation: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.starting?.generation !== generation) this.starting = { generation, done: this.open(model) };
    return this.starting.done;
  }

  /** Opens a fresh channel on the same connection, bypassing the once-per-generation guard. */
  restart(model: ChannelModel, generation: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.starting = { generation, done: this.open(model) };
    return this.starting.done;
  }

  async cancel(): Promise<void> {
    this.stopped = true;
    const { channel, consumerTag } = this;
    if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => undefined);
  }

  async idle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Tests only: closes the channel as the server would, leaving recovery to `channelLost`. */
  async loseChannel(): Promise<void> {
    await this.channel?.close();
  }

  async closeChannel(): Promise<void> {
    const channel = this.channel;
    this.channel = undefined;
    await channel?.close().catch(() => undefined);
  }

  private async open(model: ChannelModel): Promise<void> {
    const channel = await model.createChannel();
    channel.on('error', (error: Error) =>
      this.logger.warn({ err: error, consumer: this.label }, 'consumer channel error'),
    );
    channel.once('close', () => {
      if (this.channel === channel && !this.stopped) this.channelLost();
    });
    const queue = await this.declare(channel);
    this.channel = channel;
    const { consumerTag } = await channel.consume(queue, (message) => {
      if (!message) return;
      const work = this.handle(channel, message).catch((error: unknown) =>
        this.logger.error({ err: error, consumer: this.label }, 'unexpected error while handling a delivery'),
      );
      this.inFlight.add(work);
      void work.finally(() => this.inFlight.delete(work));
    });
    this.consumerTag = consumerTag;
  }
}
