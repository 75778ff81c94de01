import type { ConfirmChannel, ConsumeMessage, Message } from 'amqplib';
import { assertReply, createEnvelope, type PayloadOf, type ReplyOf, type RpcDef } from '@svc/contracts';
import { AppError, fromErrorBody } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { decodeJson, encodeJson, envelopeProperties } from './amqp-message.ts';
import type { ConnectionManager } from './connection-manager.ts';
import type { Names } from './names.ts';
import { DEADLINE_HEADER, DIRECT_REPLY_TO, type RpcReply } from './rpc-reply.ts';

export interface RpcCallContext {
  orgId: string | null;
  requestId: string | null;
  timeoutMs?: number;
  /** Target service, required when the definition leaves `service` open (ping). */
  to?: string;
}

interface Pending {
  def: RpcDef;
  target: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

const unavailable = (message: string) => new AppError('service_unavailable', message, { retryable: true });

/**
 * Direct reply-to: no reply queue to declare or clean up. Replies are consumed with noAck on a
 * dedicated channel, and requests must be published on that same channel (a RabbitMQ rule).
 */
export class RpcClient {
  private channel: Promise<ConfirmChannel> | undefined;
  private channelGeneration = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly connection: ConnectionManager;
  private readonly names: Names;
  private readonly logger: Logger;
  private readonly defaultTimeoutMs: number;

  /** Sent as `user-id` on every request; RabbitMQ refuses a value other than the connection's user. */
  private readonly brokerUser: string;

  constructor(connection: ConnectionManager, names: Names, logger: Logger, defaultTimeoutMs: number, brokerUser: string) {
    this.brokerUser = brokerUser;
    this.connection = connection;
    this.names = names;
    this.logger = logger;
    this.defaultTimeoutMs = defaultTimeoutMs;
  }

  call<D extends RpcDef>(def: D, payload: PayloadOf<D>, context: RpcCallContext): Promise<ReplyOf<D>> {
    const target = context.to ?? def.service;
    if (target === undefined) return Promise.reject(new Error(`${def.type} has no fixed service: pass { to }.`));
    const timeoutMs = context.timeoutMs ?? this.defaultTimeoutMs;
    // Everything that can throw synchronously (schema check, JSON encoding of a pathological payload)
    // runs before a timer or pending entry exists: a throw after them once left a timer that rejected
    // a promise nobody held, 5 s later, and took the gateway process down (STYLE.md rule 15).
    let envelope;
    let content: Buffer;
    try {
      envelope = createEnvelope(def, payload, context);
      content = encodeJson(envelope);
    } catch (error) {
      return Promise.reject(error instanceof AppError ? error : new AppError('validation_error', `The ${def.type} request could not be encoded.`, { cause: error }));
    }
    const correlationId = envelope.message_id;
    const deadline = Date.now() + timeoutMs;
    const properties = envelopeProperties(envelope);
    const reply = new Promise<ReplyOf<D>>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(correlationId, unavailable(`${target} did not answer within ${timeoutMs} ms.`)),
        timeoutMs,
      );
      this.pending.set(correlationId, { def, target, resolve: resolve as (value: unknown) => void, reject, timer });
    });
    void this.send(correlationId, target, content, {
      ...properties,
      headers: { ...properties.headers, [DEADLINE_HEADER]: deadline },
      correlationId,
      userId: this.brokerUser,
      replyTo: DIRECT_REPLY_TO,
      // Stale requests die in the queue instead of being answered to nobody.
      expiration: String(timeoutMs),
      persistent: false,
    }, timeoutMs);
    return reply;
  }

  /** Requests still waiting for a reply (each holds a timer); zero when idle. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** The connection dropped: replies to these requests can no longer arrive. */
  failAll(reason: string): void {
    for (const [id, pending] of this.pending) this.fail(id, unavailable(`${pending.target} ${reason}`));
  }

  private async send(
    correlationId: string,
    target: string,
    content: Buffer,
    options: Parameters<ConfirmChannel['publish']>[3],
    timeoutMs: number,
  ): Promise<void> {
    try {
      const channel = await this.getChannel(timeoutMs);
      if (!this.pending.has(correlationId)) return;
      channel.publish('', this.names.rpcQueue(target), content, { ...options, mandatory: true }, (error: unknown) => {
        if (error) this.fail(correlationId, unavailable(`The request to ${target} was not accepted by RabbitMQ.`));
      });
    } catch (error) {
      this.fail(correlationId, error instanceof AppError ? error : unavailable(`The request to ${target} could not be sent.`));
    }
  }

  private fail(correlationId: string, error: Error): void {
    const pending = this.pending.get(correlationId);
    if (!pending) return;
    this.pending.delete(correlationId);
    clearTimeout(pending.timer);
    pending.reject(error);
  }

  private onReply(message: ConsumeMessage | null): void {
    if (!message) return;
    const correlationId = String(message.properties.correlationId ?? '');
    const pending = this.pending.get(correlationId);
    if (!pending) {
      this.logger.debug({ correlation_id: correlationId }, 'late or unknown RPC reply ignored');
      return;
    }
    this.pending.delete(correlationId);
    clearTimeout(pending.timer);
    try {
      const reply = decodeJson(message.content) as RpcReply;
      if (reply.ok) {
        assertReply(pending.def, reply.result);
        pending.resolve(reply.result);
      } else {
        pending.reject(
          fromErrorBody(reply.error) ?? new AppError('internal_error', `${pending.target} sent an unreadable error reply.`),
        );
      }
    } catch (error) {
      pending.reject(
        new AppError('internal_error', `${pending.target} sent an invalid reply to ${pending.def.type}.`, { cause: error }),
      );
    }
  }

  private getChannel(timeoutMs: number): Promise<ConfirmChannel> {
    if (this.channel && this.channelGeneration === this.connection.generation && this.connection.isReady()) {
      return this.channel;
    }
    const opening = this.openChannel(timeoutMs);
    this.channel = opening;
    opening.catch(() => {
      if (this.channel === opening) this.channel = undefined;
    });
    return opening;
  }

  private async openChannel(timeoutMs: number): Promise<ConfirmChannel> {
    const model = await this.connection.whenReady(timeoutMs);
    this.channelGeneration = this.connection.generation;
    const channel = await model.createConfirmChannel();
    const current = this.channel;
    channel.on('error', (error: Error) => this.logger.warn({ err: error }, 'RPC client channel error'));
    // An unroutable request means no service ever declared its RPC queue: fail now, not at the timeout.
    channel.on('return', (message: Message) => {
      const correlationId = String(message.properties.correlationId ?? '');
      const target = this.pending.get(correlationId)?.target ?? message.fields.routingKey;
      this.fail(correlationId, unavailable(`${target} has no RPC server.`));
    });
    channel.once('close', () => {
      if (this.channel === current) this.channel = undefined;
      this.failAll('became unreachable: the broker channel closed.');
    });
    await channel.consume(DIRECT_REPLY_TO, (message) => this.onReply(message), { noAck: true });
    return channel;
  }
}
