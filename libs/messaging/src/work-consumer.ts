import type { Channel, ConsumeMessage } from 'amqplib';
import {
  assertEnvelope,
  assertPayload,
  type DeliveryContext,
  type Envelope,
  type EventOrCommandDef,
} from '@svc/contracts';
import { AppError } from '@svc/errors';
import { runWithContext, type Logger } from '@svc/logger';
import {
  copyProperties,
  decodeJson,
  errorSummary,
  RETRY_COUNT_HEADER,
  RETRY_TIER_HEADER,
  retryCountOf,
} from './amqp-message.ts';
import type { ResolvedOptions } from './broker-options.ts';
import { AckCoalescer } from './ack-coalescer.ts';
import { ChannelConsumer } from './channel-consumer.ts';
import { consumeTraced } from './message-tracing.ts';
import type { Names } from './names.ts';
import type { Publisher } from './publisher.ts';
import { declareWorkQueue, type DeclaredTopology } from './topology.ts';
import { decideFailure } from './retry-policy.ts';

export type AnyHandler = (envelope: Envelope, context: DeliveryContext) => Promise<void>;

export interface WorkConsumerSpec {
  queue: string;
  messages: readonly EventOrCommandDef[];
  /** Handled but no longer bound (see ConsumeSpec.retired). */
  retired: readonly EventOrCommandDef[];
  handlers: Record<string, AnyHandler>;
  prefetch: number;
}

export interface WorkConsumerDeps {
  names: Names;
  options: ResolvedOptions;
  publisher: Publisher;
  declared: DeclaredTopology;
  logger: Logger;
  /** The server closed this consumer's channel while the connection lives on (e.g. a 406). */
  onChannelLost: (consumer: WorkConsumer) => void;
}

type ParkReason = 'invalid' | 'non_retryable' | 'retries_exhausted';

/**
 * One work queue on its own channel. Each delivery is acked on the channel that delivered it, and only
 * while that channel is still the live one: after a reconnect the broker redelivers anything unacked,
 * and an ack on a dead or newer channel would be an error (docs/reliability.md, "Broker facts behind
 * these rules").
 */
export class WorkConsumer extends ChannelConsumer {
  private readonly byType: Map<string, EventOrCommandDef>;
  private readonly spec: WorkConsumerSpec;
  private readonly deps: WorkConsumerDeps;
  readonly workQueue: string;
  /** Each channel's acks, sent together once per turn (AckCoalescer). */
  private readonly acks = new WeakMap<Channel, AckCoalescer>();

  constructor(spec: WorkConsumerSpec, deps: WorkConsumerDeps) {
    super(deps.logger, deps.names.workQueue(spec.queue));
    this.spec = spec;
    this.deps = deps;
    this.byType = new Map(spec.messages.map((def) => [def.type, def]));
    this.workQueue = deps.names.workQueue(spec.queue);
    for (const def of spec.messages) {
      if (typeof spec.handlers[def.type] !== 'function')
        throw new Error(`No handler for ${def.type} on queue ${spec.queue}.`);
    }
    for (const def of spec.retired) {
      if (!this.byType.has(def.type))
        throw new Error(`Retired ${def.type} on queue ${spec.queue} must still be handled: list it in messages.`);
    }
  }

  protected async declare(channel: Channel): Promise<string> {
    const { names, declared, options } = this.deps;
    const bindingOf = (def: EventOrCommandDef) => ({
      exchange: def.kind === 'event' ? names.events : names.commands,
      routingKey: def.type,
    });
    const retired = new Set(this.spec.retired.map((def) => def.type));
    await declareWorkQueue(
      channel,
      names,
      {
        queue: this.spec.queue,
        deliveryLimit: options.deliveryLimit,
        bindings: this.spec.messages.filter((def) => !retired.has(def.type)).map(bindingOf),
      },
      declared,
    );
    // RabbitMQ answers unbind-ok for a binding that is not there, so this holds on every start.
    for (const def of this.spec.retired) {
      const { exchange, routingKey } = bindingOf(def);
      await channel.unbindQueue(this.workQueue, exchange, routingKey);
    }
    await channel.prefetch(this.spec.prefetch, false);
    return this.workQueue;
  }

  protected channelLost(): void {
    this.deps.onChannelLost(this);
  }

  /** The acks of handlers that finished leave before the channel closes, or they would be redelivered. */
  override async closeChannel(): Promise<void> {
    if (this.channel !== undefined) this.acks.get(this.channel)?.flush();
    await super.closeChannel();
  }

  protected async handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    // Before any await: no ack of several deliveries at once may cover this one while it runs.
    this.acksOf(channel).received(message);
    const started = Date.now();
    let envelope: Envelope;
    let def: EventOrCommandDef;
    try {
      const body = decodeJson(message.content);
      assertEnvelope(body);
      const found = this.byType.get(body.type);
      if (!found)
        throw new AppError('validation_error', `Queue ${this.workQueue} does not handle message type ${body.type}.`);
      assertPayload(found, body.payload);
      envelope = body;
      def = found;
    } catch (error) {
      this.deps.logger.error(
        { err: error, queue: this.workQueue, message_id: message.properties.messageId },
        'invalid message parked',
      );
      await this.park(channel, message, 'invalid', error, 1);
      this.deps.options.metrics.onConsume?.(
        String(message.properties.type ?? 'unknown'),
        'parked',
        Date.now() - started,
      );
      return;
    }
    const attempt = retryCountOf(message) + 1;
    if (attempt === 1 && !message.fields.redelivered)
      this.deps.options.metrics.onWait?.(this.workQueue, Math.max(0, started - Date.parse(envelope.occurred_at)));
    const handler = this.spec.handlers[def.type]!;
    const context = { requestId: envelope.request_id ?? envelope.message_id, orgId: envelope.org_id ?? undefined };
    // The span covers the handler and, on failure, the retry or parking copy it leads to.
    await consumeTraced(envelope, this.workQueue, message.properties.headers, attempt, async (failed) => {
      try {
        await runWithContext(context, () => handler(envelope, { redelivered: message.fields.redelivered, attempt }));
        this.ack(channel, message);
        this.deps.options.metrics.onConsume?.(def.type, 'ack', Date.now() - started);
      } catch (error) {
        failed(error);
        const outcome = await runWithContext(context, () => this.onFailure(channel, message, def, attempt, error));
        this.deps.options.metrics.onConsume?.(def.type, outcome, Date.now() - started);
      }
    });
  }

  private async onFailure(
    channel: Channel,
    message: ConsumeMessage,
    def: EventOrCommandDef,
    attempt: number,
    error: unknown,
  ): Promise<'retry' | 'parked'> {
    const { options, names, publisher, logger } = this.deps;
    const decision = decideFailure(error, attempt, def.retry?.maxRetries ?? options.maxRetries, options.retryDelaysMs);
    const log = {
      err: error,
      queue: this.workQueue,
      type: def.type,
      message_id: message.properties.messageId,
      attempt,
    };
    if (decision.action === 'park') {
      logger.error({ ...log, reason: decision.reason }, 'message parked');
      await this.park(channel, message, decision.reason, error, attempt);
      return 'parked';
    }
    logger.warn({ ...log, retry_in_ms: decision.delayMs }, 'handler failed; retrying later');
    const properties = copyProperties(message, {
      [RETRY_COUNT_HEADER]: decision.retryCount,
      [RETRY_TIER_HEADER]: String(decision.delayMs),
      'x-last-error': errorSummary(error),
    });
    // Copy first, ack second: a crash in between duplicates the message, never loses it.
    await this.settleWithCopy(channel, message, () =>
      publisher.publish(names.retry, this.workQueue, message.content, properties),
    );
    return 'retry';
  }

  private async park(
    channel: Channel,
    message: ConsumeMessage,
    reason: ParkReason,
    error: unknown,
    attempt: number,
  ): Promise<void> {
    const properties = copyProperties(message, {
      'x-park-reason': reason,
      'x-last-error': errorSummary(error),
      'x-attempts': attempt,
      'x-parked-at': new Date().toISOString(),
    });
    await this.settleWithCopy(channel, message, () =>
      this.deps.publisher.publish(this.deps.names.parking, this.workQueue, message.content, properties),
    );
  }

  private async settleWithCopy(channel: Channel, message: ConsumeMessage, copy: () => Promise<void>): Promise<void> {
    try {
      await copy();
    } catch (error) {
      // The copy was not confirmed: hand the original back. Endless failures end in parking through
      // x-delivery-limit.
      this.deps.logger.error({ err: error, queue: this.workQueue }, 'could not store a retry/parking copy; requeueing');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      this.settle(channel, message, (live) => {
        this.acksOf(live).settledAlone(message);
        live.nack(message, false, true);
      });
      return;
    }
    this.ack(channel, message);
  }

  private ack(channel: Channel, message: ConsumeMessage): void {
    this.settle(channel, message, (live) => this.acksOf(live).ack(message));
  }

  private acksOf(channel: Channel): AckCoalescer {
    let acks = this.acks.get(channel);
    if (acks === undefined) {
      acks = new AckCoalescer(channel, (error) =>
        this.deps.logger.warn(
          { err: error, queue: this.workQueue },
          'could not ack deliveries; they will be redelivered',
        ),
      );
      this.acks.set(channel, acks);
    }
    return acks;
  }

  private settle(channel: Channel, message: ConsumeMessage, action: (channel: Channel) => void): void {
    if (channel !== this.channel) {
      this.deps.logger.debug(
        { queue: this.workQueue },
        'delivery from a closed channel not settled; it will be redelivered',
      );
      return;
    }
    try {
      action(channel);
    } catch (error) {
      this.deps.logger.warn(
        { err: error, queue: this.workQueue },
        'could not settle a delivery; it will be redelivered',
      );
    }
  }
}
