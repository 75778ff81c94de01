import type { ConfirmChannel, ConsumeMessage, Message, Options } from 'amqplib';
import {
  assertReply,
  createEnvelope,
  systemBatch,
  type Envelope,
  type PayloadOf,
  type ReplyOf,
  type RpcDef,
} from '@svc/contracts';
import { AppError, fromErrorBody } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { TraceCarrier } from '@svc/tracing';
import { decodeJson, encodeJson, envelopeProperties } from './amqp-message.ts';
import type { ConnectionManager } from './connection-manager.ts';
import { BATCH_TRACE_HEADER } from './message-tracing.ts';
import type { Names } from './names.ts';
import { DEADLINE_HEADER, DIRECT_REPLY_TO, type RpcReply } from './rpc-reply.ts';
import { MAX_BATCH, TurnBatches } from './rpc-batch.ts';

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
  /** The batch message that carries it, while that batch has requests waiting. */
  batchId?: string;
}

/** A request ready to go: alone, or inside a batch (and alone again if the server refuses batches). */
interface Outgoing {
  correlationId: string;
  target: string;
  timeoutMs: number;
  deadline: number;
  envelope: Envelope;
  /** The envelope encoded, for a request that goes alone. */
  content: Buffer;
  /** The caller's W3C trace context (empty with tracing off). */
  trace: TraceCarrier;
}

interface SentBatch {
  target: string;
  members: Outgoing[];
  /** Members still waiting for their reply. */
  waiting: number;
}

/** After a server refused a batch (one not yet upgraded), requests to it go one by one for this long. */
const UNBATCHED_MS = 60_000;

const unavailable = (message: string) => new AppError('service_unavailable', message, { retryable: true });

/**
 * Direct reply-to: no reply queue to declare or clean up. Replies are consumed with noAck on a
 * dedicated channel, and requests must be published on that same channel (a RabbitMQ rule).
 */
export class RpcClient {
  private channel: Promise<ConfirmChannel> | undefined;
  private channelGeneration = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly batches = new Map<string, SentBatch>();
  private readonly unbatchedUntil = new Map<string, number>();
  private readonly turns: TurnBatches<Outgoing>;
  private readonly connection: ConnectionManager;
  private readonly names: Names;
  private readonly logger: Logger;
  private readonly defaultTimeoutMs: number;

  /** Sent as `user-id` on every request; RabbitMQ refuses a value other than the connection's user. */
  private readonly brokerUser: string;

  constructor(
    connection: ConnectionManager,
    names: Names,
    logger: Logger,
    defaultTimeoutMs: number,
    brokerUser: string,
  ) {
    this.brokerUser = brokerUser;
    this.connection = connection;
    this.names = names;
    this.logger = logger;
    this.defaultTimeoutMs = defaultTimeoutMs;
    // Calls to one service with one timeout made in the same turn share a message: the gateway's
    // requests that a burst of network reads lets through together become one request message.
    this.turns = new TurnBatches((requests) => this.sendTogether(requests));
  }

  call<D extends RpcDef>(
    def: D,
    payload: PayloadOf<D>,
    context: RpcCallContext,
    trace: TraceCarrier = {},
  ): Promise<ReplyOf<D>> {
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
      return Promise.reject(
        error instanceof AppError
          ? error
          : new AppError('validation_error', `The ${def.type} request could not be encoded.`, { cause: error }),
      );
    }
    const correlationId = envelope.message_id;
    const reply = new Promise<ReplyOf<D>>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(correlationId, unavailable(`${target} did not answer within ${timeoutMs} ms.`)),
        timeoutMs,
      );
      this.pending.set(correlationId, { def, target, resolve: resolve as (value: unknown) => void, reject, timer });
    });
    const request: Outgoing = {
      correlationId,
      target,
      timeoutMs,
      deadline: Date.now() + timeoutMs,
      envelope,
      content,
      trace,
    };
    if ((this.unbatchedUntil.get(target) ?? 0) > Date.now()) this.sendAlone(request);
    else this.turns.add(`${target}\n${timeoutMs}`, request);
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

  /** One request per message: alone in its turn, or to a server that refused a batch. */
  private sendAlone(request: Outgoing): void {
    const properties = envelopeProperties(request.envelope);
    properties.headers = { ...properties.headers, ...request.trace };
    void this.send(request.correlationId, request, request.deadline, request.content, properties);
  }

  private sendTogether(requests: Outgoing[]): void {
    // A request that failed while it waited for its turn (a dropped connection) is not sent.
    const live = requests.filter((request) => this.pending.has(request.correlationId));
    for (let start = 0; start < live.length; start += MAX_BATCH) {
      const members = live.slice(start, start + MAX_BATCH);
      if (members.length === 1) {
        this.sendAlone(members[0]!);
        continue;
      }
      let envelope;
      let content: Buffer;
      try {
        envelope = createEnvelope(
          systemBatch,
          { requests: members.map((member) => member.envelope) },
          { orgId: null, requestId: null },
        );
        content = encodeJson(envelope);
      } catch (error) {
        // This runs in a timer callback, where a throw would end the process: each went alone before.
        this.logger.error(
          { err: error, target: members[0]!.target },
          'RPC batch could not be encoded; sending its requests one by one',
        );
        for (const member of members) this.sendAlone(member);
        continue;
      }
      this.batches.set(envelope.message_id, { target: members[0]!.target, members, waiting: members.length });
      for (const member of members) this.pending.get(member.correlationId)!.batchId = envelope.message_id;
      // Every member was made in this turn with the same timeout: the earliest deadline is everyone's.
      const deadline = Math.min(...members.map((member) => member.deadline));
      const properties = envelopeProperties(envelope);
      const traces = batchTraces(members);
      if (traces !== undefined) properties.headers = { ...properties.headers, [BATCH_TRACE_HEADER]: traces };
      void this.send(envelope.message_id, members[0]!, deadline, content, properties);
    }
  }

  private async send(
    correlationId: string,
    { target, timeoutMs }: Outgoing,
    deadline: number,
    content: Buffer,
    properties: Options.Publish,
  ): Promise<void> {
    try {
      const channel = await this.getChannel(timeoutMs);
      if (!this.isWaiting(correlationId)) return;
      channel.publish(
        '',
        this.names.rpcQueue(target),
        content,
        {
          ...properties,
          headers: { ...properties.headers, [DEADLINE_HEADER]: deadline },
          correlationId,
          userId: this.brokerUser,
          replyTo: DIRECT_REPLY_TO,
          // Stale requests die in the queue instead of being answered to nobody.
          expiration: String(timeoutMs),
          persistent: false,
          mandatory: true,
        },
        (error: unknown) => {
          if (error) this.fail(correlationId, unavailable(`The request to ${target} was not accepted by RabbitMQ.`));
        },
      );
    } catch (error) {
      this.fail(
        correlationId,
        error instanceof AppError ? error : unavailable(`The request to ${target} could not be sent.`),
      );
    }
  }

  private isWaiting(correlationId: string): boolean {
    return this.pending.has(correlationId) || (this.batches.get(correlationId)?.waiting ?? 0) > 0;
  }

  /** Fails a request, or every request still waiting in a batch. */
  private fail(correlationId: string, error: Error): void {
    const batch = this.batches.get(correlationId);
    if (batch) {
      for (const member of batch.members) this.fail(member.correlationId, error);
      return;
    }
    this.take(correlationId)?.reject(error);
  }

  /** Removes a request that is settled now, and its batch once that has no request waiting. */
  private take(correlationId: string): Pending | undefined {
    const pending = this.pending.get(correlationId);
    if (!pending) return undefined;
    this.pending.delete(correlationId);
    clearTimeout(pending.timer);
    const batch = pending.batchId === undefined ? undefined : this.batches.get(pending.batchId);
    if (batch) {
      batch.waiting -= 1;
      if (batch.waiting === 0) this.batches.delete(pending.batchId!);
    }
    return pending;
  }

  private onReply(message: ConsumeMessage | null): void {
    if (!message) return;
    const correlationId = String(message.properties.correlationId ?? '');
    const batch = this.batches.get(correlationId);
    if (batch) {
      this.onBatchReply(correlationId, batch, message.content);
      return;
    }
    this.settle(correlationId, () => decodeJson(message.content) as RpcReply);
  }

  private onBatchReply(batchId: string, batch: SentBatch, content: Buffer): void {
    let reply: RpcReply;
    try {
      reply = decodeJson(content) as RpcReply;
      if (reply.ok) assertReply(systemBatch, reply.result);
    } catch (error) {
      this.fail(
        batchId,
        new AppError('internal_error', `${batch.target} sent an invalid reply to ${systemBatch.type}.`, {
          cause: error,
        }),
      );
      return;
    }
    if (reply.ok) {
      const members = new Set(batch.members.map((member) => member.correlationId));
      for (const { correlation_id: id, reply: answer } of (reply.result as ReplyOf<typeof systemBatch>).replies) {
        if (members.has(id)) this.settle(id, () => answer as RpcReply);
      }
      return;
    }
    // Refused as a whole, so nothing in it ran: most likely a server from before batches.
    this.unbatchedUntil.set(batch.target, Date.now() + UNBATCHED_MS);
    this.logger.warn(
      { target: batch.target, requests: batch.waiting, code: reply.error.error?.code },
      'RPC batch refused; sending its requests one by one',
    );
    this.batches.delete(batchId);
    for (const member of batch.members) {
      const pending = this.pending.get(member.correlationId);
      if (pending?.batchId !== batchId) continue;
      delete pending.batchId;
      this.sendAlone(member);
    }
  }

  private settle(correlationId: string, read: () => RpcReply): void {
    const pending = this.take(correlationId);
    if (!pending) {
      this.logger.debug({ correlation_id: correlationId }, 'late or unknown RPC reply ignored');
      return;
    }
    try {
      const reply = read();
      if (reply.ok) {
        assertReply(pending.def, reply.result);
        pending.resolve(reply.result);
      } else {
        pending.reject(
          fromErrorBody(reply.error) ??
            new AppError('internal_error', `${pending.target} sent an unreadable error reply.`),
        );
      }
    } catch (error) {
      pending.reject(
        new AppError('internal_error', `${pending.target} sent an invalid reply to ${pending.def.type}.`, {
          cause: error,
        }),
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
      const target =
        this.pending.get(correlationId)?.target ?? this.batches.get(correlationId)?.target ?? message.fields.routingKey;
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

/** Each batched request's trace context by its message id (none when no member is traced). */
function batchTraces(members: readonly Outgoing[]): Record<string, TraceCarrier> | undefined {
  const traced = members.filter((member) => member.trace.traceparent !== undefined);
  if (traced.length === 0) return undefined;
  return Object.fromEntries(traced.map((member) => [member.correlationId, member.trace]));
}
