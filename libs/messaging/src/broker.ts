import type { Channel, ChannelModel } from 'amqplib';
import {
  assertEnvelope,
  assertPayload,
  createEnvelope,
  findMessage,
  subscribersOf,
  type Envelope,
  type EventOrCommandDef,
  type Handlers,
  type PayloadOf,
  type ReplyOf,
  type RpcDef,
  type RpcHandlers,
} from '@svc/contracts';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { TraceCarrier } from '@svc/tracing';
import {
  copyProperties,
  encodeJson,
  envelopeProperties,
  RETRY_COUNT_HEADER,
  RETRY_TIER_HEADER,
} from './amqp-message.ts';
import { resolveOptions, type BrokerOptions, type ResolvedOptions } from './broker-options.ts';
import { ConnectionManager } from './connection-manager.ts';
import { testHooks, type TestHooks } from './internals.ts';
import { callTraced, publishTraced } from './message-tracing.ts';
import { createNames, type Names } from './names.ts';
import { readQueueDepths, type QueueDepth } from './queue-depth.ts';
import { Publisher } from './publisher.ts';
import { RpcClient, type RpcCallContext } from './rpc-client.ts';
import { RpcServer, type AnyRpcHandler } from './rpc-server.ts';
import { declareBaseTopology, declareWorkQueue, type DeclaredTopology } from './topology.ts';
import { WorkConsumer, type AnyHandler } from './work-consumer.ts';

/** How long one step of `deleteTopology` may take before it is tried again on a fresh connection. */
const CLEANUP_STEP_DEADLINE_MS = 10_000;

/** `work`, or a rejection once `ms` have passed without its answer. */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

export interface PublishContext {
  orgId: string | null;
  requestId: string | null;
  messageId?: string;
}

export interface ConsumeSpec<Defs extends readonly EventOrCommandDef[]> {
  /** Logical queue name, e.g. 'publisher.delivery'; the broker prefixes the namespace. */
  queue: string;
  messages: Defs;
  handlers: Handlers<Defs>;
  prefetch?: number;
  /**
   * Messages of `messages` this queue no longer subscribes to: not bound, and the binding a previous
   * release made is removed whenever the consumer starts. Still handled, since some may be in the
   * queue already or come from processes of that release during an upgrade.
   */
  retired?: readonly EventOrCommandDef[];
}

export interface DelaySpec {
  /** Logical work queue the message returns to, e.g. 'webhook-dispatcher.deliveries'. */
  queue: string;
  delayMs: number;
}

export interface ServeRpcSpec<Defs extends readonly RpcDef[]> {
  messages: Defs;
  handlers: RpcHandlers<Defs>;
  /**
   * A separate lane of this service's RPC: its own queue (`<prefix>.<service>.<lane>.rpc`), channel and
   * prefetch, for requests whose defs name the service `<service>.<lane>`. Slow requests there (a
   * webhook test waiting on a receiver) never hold a prefetch slot the service's other requests need.
   */
  lane?: string;
  /** Prefetch of a lane's channel (default: the broker's prefetch). */
  prefetch?: number;
}

/**
 * The one way services talk to RabbitMQ: typed publish/consume/RPC over a self-healing connection.
 * Everything declared here is re-declared after a reconnect.
 */
export class Broker {
  private readonly options: ResolvedOptions;
  private readonly names: Names;
  private readonly logger: Logger;
  private readonly connection: ConnectionManager;
  private readonly publisher: Publisher;
  private readonly rpcClient: RpcClient;
  private readonly declared: DeclaredTopology = { exchanges: new Set(), queues: new Set() };
  private readonly consumers: WorkConsumer[] = [];
  /** The RPC servers, by lane ('' for the service's own queue). */
  private readonly rpcServers = new Map<string, RpcServer>();
  private consuming = true;
  /** Subscriber queues declared on the current connection, by logical queue name. */
  private subscribers = new Map<string, Promise<void>>();

  readonly [testHooks]: TestHooks = {
    dropConnection: () => this.connection.destroySocket(),
    loseConsumerChannels: async () => {
      await Promise.all(this.consumers.map((consumer) => consumer.loseChannel()));
    },
  };

  private constructor(options: ResolvedOptions) {
    this.options = options;
    this.names = createNames(options.namespace);
    this.logger = options.logger.child({ component: 'broker' });
    this.connection = new ConnectionManager({
      url: options.url,
      // The connection's name in RabbitMQ: with the namespace, an operator (or the fault suite) can
      // tell one deployment's publisher from another's on a shared broker.
      service: options.namespace ? `${options.namespace}/${options.service}` : options.service,
      heartbeatSec: options.heartbeatSec,
      reconnect: options.reconnect,
      logger: this.logger,
      setup: (model, generation) => this.setup(model, generation),
      onReconnect: () => options.metrics.onReconnect?.(),
    });
    this.publisher = new Publisher(this.connection, this.logger, {
      maxUnconfirmed: options.maxUnconfirmed,
      waitMs: options.publishWaitMs,
    });
    this.rpcClient = new RpcClient(
      this.connection,
      this.names,
      this.logger,
      options.rpcTimeoutMs,
      brokerUserOf(options.url),
    );
  }

  static async connect(options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(resolveOptions(options));
    await broker.connection.start();
    return broker;
  }

  /** The namespaced name of a logical queue, e.g. for operator tooling and tests. */
  queueName(queue: string): string {
    return this.names.workQueue(queue);
  }

  parkingQueueName(queue: string): string {
    return this.names.parkingQueue(queue);
  }

  /** Ready messages and consumers of the queues this broker consumes (work, parking, RPC): the queue gauges. */
  async queueDepths(): Promise<QueueDepth[]> {
    const model = await this.connection.whenReady(this.options.publishWaitMs);
    const queues = [
      ...this.consumers.flatMap((consumer) => [consumer.workQueue, `${consumer.workQueue}.parking`]),
      ...[...this.rpcServers.keys()].map((lane) =>
        this.names.rpcQueue(lane === '' ? this.options.service : `${this.options.service}.${lane}`),
      ),
    ];
    return readQueueDepths(model, [...new Set(queues)]);
  }

  isConnected(): boolean {
    return this.connection.isReady();
  }

  async publish<D extends EventOrCommandDef>(def: D, payload: PayloadOf<D>, context: PublishContext): Promise<void> {
    await this.send(def, createEnvelope(def, payload, context));
  }

  /**
   * For the outbox relay, which stores envelopes and only knows their type string. `trace`: the W3C
   * context stored with the row (null when it was written outside any trace); the publish continues it.
   */
  async publishEnvelope(envelope: Envelope, trace?: TraceCarrier | null): Promise<void> {
    assertEnvelope(envelope);
    const def = findMessage(envelope.type);
    if (!def || def.kind === 'rpc') {
      throw new AppError('validation_error', `Message type ${envelope.type} is not a known event or command.`);
    }
    assertPayload(def, envelope.payload);
    await this.send(def, envelope, trace);
  }

  /**
   * Publishes a message straight to one work queue, back after about `delayMs`: it waits in the
   * largest delay tier not longer than the delay (the shortest tier when the delay is shorter) and
   * dead-letters into `queue`. Tiers are fixed (queue TTLs), so callers that need a due time carry it
   * in the payload and delay the remainder again when the message comes back early. Returns the tier.
   */
  async publishDelayed<D extends EventOrCommandDef>(
    def: D,
    payload: PayloadOf<D>,
    context: PublishContext,
    spec: DelaySpec,
  ): Promise<number> {
    const tiers = this.options.retryDelaysMs;
    const tierMs = tiers.filter((ms) => ms <= spec.delayMs).at(-1) ?? Math.min(...tiers);
    const envelope = createEnvelope(def, payload, context);
    const properties = envelopeProperties(envelope);
    const queue = this.names.workQueue(spec.queue);
    await publishTraced(envelope, queue, (trace) => {
      properties.headers = { ...properties.headers, ...trace, [RETRY_TIER_HEADER]: String(tierMs) };
      return this.publisher.publish(this.names.retry, queue, encodeJson(envelope), properties);
    });
    this.options.metrics.onPublish?.(def.type);
    return tierMs;
  }

  /** The delay tiers (ms, ascending) this broker declared. */
  delayTiersMs(): readonly number[] {
    return [...this.options.retryDelaysMs].sort((a, b) => a - b);
  }

  async consume<Defs extends readonly EventOrCommandDef[]>(spec: ConsumeSpec<Defs>): Promise<void> {
    const consumer = new WorkConsumer(
      {
        queue: spec.queue,
        messages: spec.messages,
        retired: spec.retired ?? [],
        handlers: spec.handlers as unknown as Record<string, AnyHandler>,
        prefetch: spec.prefetch ?? this.options.prefetch,
      },
      {
        names: this.names,
        options: this.options,
        publisher: this.publisher,
        declared: this.declared,
        logger: this.logger,
        onChannelLost: (lost) => this.reopenLater(lost),
      },
    );
    this.consumers.push(consumer);
    try {
      const model = await this.connection.whenReady(this.options.publishWaitMs);
      await consumer.start(model, this.connection.generation);
    } catch (error) {
      this.consumers.splice(this.consumers.indexOf(consumer), 1);
      await consumer.closeChannel();
      throw error;
    }
  }

  async serveRpc<Defs extends readonly RpcDef[]>(spec: ServeRpcSpec<Defs>): Promise<void> {
    const lane = spec.lane ?? '';
    if (lane !== '' && !/^[a-z][a-z0-9-]*$/.test(lane)) throw new Error(`Invalid RPC lane "${lane}".`);
    const server =
      this.rpcServers.get(lane) ??
      new RpcServer({
        names: this.names,
        service: lane === '' ? this.options.service : `${this.options.service}.${lane}`,
        prefetch: spec.prefetch ?? this.options.prefetch,
        declared: this.declared,
        logger: this.logger,
        callerUserPrefix: this.options.callerUserPrefix,
        onChannelLost: (lost) => this.reopenLater(lost),
      });
    this.rpcServers.set(lane, server);
    server.add(spec.messages, spec.handlers as unknown as Record<string, AnyRpcHandler>);
    const model = await this.connection.whenReady(this.options.publishWaitMs);
    await server.start(model, this.connection.generation);
  }

  rpc<D extends RpcDef>(def: D, payload: PayloadOf<D>, context: RpcCallContext): Promise<ReplyOf<D>> {
    return callTraced(def.type, context.requestId, (trace) => this.rpcClient.call(def, payload, context, trace));
  }

  /** Operator tool: moves up to `limit` parked messages back to their work queue with a fresh retry budget. */
  async requeueParked(queue: string, limit = 1000): Promise<number> {
    const model = await this.connection.whenReady(this.options.publishWaitMs);
    const channel = await model.createChannel();
    const work = this.names.workQueue(queue);
    let moved = 0;
    try {
      while (moved < limit) {
        const message = await channel.get(this.names.parkingQueue(queue), { noAck: false });
        if (!message) break;
        const properties = copyProperties(message, {
          [RETRY_COUNT_HEADER]: undefined,
          [RETRY_TIER_HEADER]: undefined,
          'x-park-reason': undefined,
          'x-last-error': undefined,
          'x-attempts': undefined,
          'x-parked-at': undefined,
          'x-requeued-at': new Date().toISOString(),
        });
        try {
          await this.publisher.publish('', work, message.content, properties);
        } catch (error) {
          channel.nack(message, false, true);
          throw error;
        }
        channel.ack(message);
        moved += 1;
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
    this.logger.info({ queue: work, moved }, 'parked messages requeued');
    return moved;
  }

  /**
   * Cancels every consumer, lets in-flight handlers finish (and ack) until the deadline, then closes
   * the consumer channels so anything unfinished is requeued (docs/reliability.md, "Broker facts
   * behind these rules").
   */
  async stopConsuming(options: { deadlineMs?: number } = {}): Promise<void> {
    this.consuming = false;
    const all = [...this.consumers, ...this.rpcServers.values()];
    await Promise.all(all.map((consumer) => consumer.cancel()));
    const deadlineMs = options.deadlineMs ?? 25000;
    const idle = await withDeadline(Promise.all(all.map((consumer) => consumer.idle())), deadlineMs).then(
      () => true,
      () => false,
    );
    if (!idle)
      this.logger.warn(
        { deadline_ms: deadlineMs },
        'handlers still running at the stop deadline; their messages will be redelivered',
      );
    await Promise.all(all.map((consumer) => consumer.closeChannel()));
  }

  /** Stops reconnecting, waits for outstanding confirms and closes the connection. */
  async close(): Promise<void> {
    await this.connection.close(async () => {
      await this.publisher.waitForConfirms();
      if (this.consuming) await this.stopConsuming({ deadlineMs: 0 });
    });
    this.rpcClient.failAll('cannot be reached: the broker is closed.');
  }

  /** Tests only: removes every queue and exchange this broker declared. */
  async deleteTopology(also: { queues?: readonly string[] } = {}): Promise<void> {
    // `also.queues` are logical names (e.g. 'publisher.work') that other processes of this namespace
    // declared: tests stop those processes first, and nothing else would delete their quorum queues.
    for (const queue of also.queues ?? [])
      await this.cleanupStep((channel) => channel.deleteQueue(this.names.workQueue(queue)));
    for (const queue of this.declared.queues) await this.cleanupStep((channel) => channel.deleteQueue(queue));
    for (const exchange of this.declared.exchanges)
      await this.cleanupStep((channel) => channel.deleteExchange(exchange));
    this.declared.queues.clear();
    this.declared.exchanges.clear();
  }

  /**
   * One cleanup step, on a channel of its own on the connection as it is now. RabbitMQ closes a
   * connection whose publish races the deletion of a quorum queue it routes to (an internal error in
   * the publishing channel: a retry published while the test's teardown deletes the retry queues),
   * and a step sent on that closed connection waited forever (a test's teardown stalled past its
   * hook's timeout, test/webhooks/delivery). So each step has a deadline, and a step that fails or
   * outlasts it is tried once more on the connection that replaced it.
   */
  private async cleanupStep(action: (channel: Channel) => Promise<unknown>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const model = await this.connection.whenReady(this.options.publishWaitMs);
        await withDeadline(this.onOwnChannel(model, action), CLEANUP_STEP_DEADLINE_MS);
        return;
      } catch (error) {
        this.logger.debug({ err: error, attempt }, 'topology cleanup step failed');
        if (attempt >= 2) return;
      }
    }
  }

  private async onOwnChannel(model: ChannelModel, action: (channel: Channel) => Promise<unknown>): Promise<void> {
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      await action(channel);
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  private async send(def: EventOrCommandDef, envelope: Envelope, trace?: TraceCarrier | null): Promise<void> {
    if (def.kind === 'event') await this.ensureSubscribers(def.type);
    const exchange = def.kind === 'event' ? this.names.events : this.names.commands;
    const properties = envelopeProperties(envelope);
    await publishTraced(
      envelope,
      exchange,
      (headers) =>
        this.publisher.publish(exchange, def.type, encodeJson(envelope), {
          ...properties,
          headers: { ...properties.headers, ...headers },
        }),
      trace,
    );
    this.options.metrics.onPublish?.(def.type);
  }

  /**
   * Declares the work queues subscribed to an event type (libs/contracts subscriptions) before the
   * first publish of it on this connection, so the event waits for its consumer instead of being
   * unroutable while that consumer has never started. Same arguments as the consumer's own declaration.
   */
  private ensureSubscribers(type: string): Promise<void> {
    const pending = subscribersOf(type).map(({ queue, types }) => {
      let declared = this.subscribers.get(queue);
      if (declared === undefined) {
        declared = this.declareSubscriber(queue, types);
        this.subscribers.set(queue, declared);
        declared.catch(() => this.subscribers.delete(queue));
      }
      return declared;
    });
    return Promise.all(pending).then(() => undefined);
  }

  private async declareSubscriber(queue: string, types: string[]): Promise<void> {
    const model = await this.connection.whenReady(this.options.publishWaitMs);
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      await declareWorkQueue(
        channel,
        this.names,
        {
          queue,
          deliveryLimit: this.options.deliveryLimit,
          bindings: types.map((routingKey) => ({ exchange: this.names.events, routingKey })),
        },
        this.declared,
      );
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  /**
   * A channel also closes when the whole connection goes; then setup after the reconnect re-creates
   * the consumer. The delay lets that case show itself (not ready, or a newer generation) first.
   */
  private reopenLater(consumer: WorkConsumer | RpcServer): void {
    const generation = this.connection.generation;
    const timer = setTimeout(() => {
      const model = this.connection.current();
      if (!model || !this.consuming || this.connection.generation !== generation) return;
      this.logger.warn('consumer channel closed by the broker; reopening it');
      consumer
        .restart(model, generation)
        .catch((error: unknown) => this.logger.error({ err: error }, 'could not reopen a consumer channel'));
    }, 1000);
    timer.unref();
  }

  private async setup(model: ChannelModel, generation: number): Promise<void> {
    this.rpcClient.failAll('became unreachable: the broker connection was lost.');
    this.subscribers = new Map();
    await this.withTopologyChannel(model);
    if (!this.consuming) return;
    for (const consumer of this.consumers) await consumer.start(model, generation);
    for (const server of this.rpcServers.values()) await server.start(model, generation);
  }

  private async withTopologyChannel(model: ChannelModel): Promise<void> {
    const channel = await model.createChannel();
    try {
      await declareBaseTopology(channel, this.names, this.options.retryDelaysMs, this.declared);
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
}

/** The user this connection authenticates as (AMQP's default when the URL names none). */
function brokerUserOf(url: string): string {
  const user = new URL(url).username;
  return user === '' ? 'guest' : decodeURIComponent(user);
}
