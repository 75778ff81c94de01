import type { Channel, ConsumeMessage } from 'amqplib';
import {
  assertEnvelope,
  assertPayload,
  assertReply,
  systemBatch,
  systemPing,
  type Envelope,
  type RpcContext,
  type RpcDef,
} from '@svc/contracts';
import { AppError, isAppError, toErrorBody } from '@svc/errors';
import { runWithContext, type Logger } from '@svc/logger';
import { decodeJson, encodeJson } from './amqp-message.ts';
import { ChannelConsumer } from './channel-consumer.ts';
import type { Names } from './names.ts';
import { TurnBatches } from './rpc-batch.ts';
import { rpcRequestTrace, serveTraced } from './message-tracing.ts';
import { DEADLINE_HEADER, type RpcReply } from './rpc-reply.ts';
import { declareRpcQueue, type DeclaredTopology } from './topology.ts';

interface AnswerRequest {
  userId: unknown;
  /** Names the request in logs and error bodies when its envelope cannot be read. */
  fallbackId: string;
  deadline: number | undefined;
  /** The delivery's AMQP headers, and whether it was a batch (each request's trace context is in them). */
  headers: Readonly<Record<string, unknown>> | undefined;
  batched: boolean;
}

const isBatch = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as { type?: unknown }).type === systemBatch.type;

const messageIdOf = (envelope: unknown): string => {
  const id =
    typeof envelope === 'object' && envelope !== null ? (envelope as { message_id?: unknown }).message_id : undefined;
  return typeof id === 'string' ? id : 'unknown';
};

export type AnyRpcHandler = (envelope: Envelope, context: RpcContext) => Promise<unknown>;

export interface RpcServerDeps {
  names: Names;
  service: string;
  prefetch: number;
  declared: DeclaredTopology;
  logger: Logger;
  /** See BrokerOptions.callerUserPrefix: when set, definitions' `callers` are enforced. */
  callerUserPrefix: string | undefined;
  /** The server closed this server's channel while the connection lives on (e.g. a 406). */
  onChannelLost: (server: RpcServer) => void;
}

/**
 * Serves `${prefix}.${service}.rpc`. Requests whose caller has given up (past `x-deadline`) are
 * acked without running the handler: the answer would be thrown away.
 */
export class RpcServer extends ChannelConsumer {
  private readonly handlers = new Map<string, { def: RpcDef; handler: AnyRpcHandler }>();
  private readonly deps: RpcServerDeps;

  constructor(deps: RpcServerDeps) {
    super(deps.logger, `${deps.service}.rpc`);
    this.deps = deps;
    this.handlers.set(systemPing.type, {
      def: systemPing,
      handler: async () => ({ service: deps.service, time: new Date().toISOString() }),
    });
  }

  add(defs: readonly RpcDef[], handlers: Record<string, AnyRpcHandler>): void {
    for (const def of defs) {
      const handler = handlers[def.type];
      if (typeof handler !== 'function') throw new Error(`No RPC handler for ${def.type}.`);
      if (def.service !== undefined && def.service !== this.deps.service) {
        throw new Error(`${def.type} is answered by ${def.service}, not by ${this.deps.service}.`);
      }
      this.handlers.set(def.type, { def, handler });
    }
  }

  protected async declare(channel: Channel): Promise<string> {
    const queue = await declareRpcQueue(channel, this.deps.names, this.deps.service, this.deps.declared);
    await channel.prefetch(this.deps.prefetch, false);
    return queue;
  }

  protected channelLost(): void {
    this.deps.onChannelLost(this);
  }

  protected async handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    const deadline = Number(message.properties.headers?.[DEADLINE_HEADER]);
    if (Number.isFinite(deadline) && Date.now() > deadline) {
      this.deps.logger.debug({ message_id: message.properties.messageId }, 'expired RPC request dropped');
      this.settle(channel, () => channel.ack(message));
      return;
    }
    const { replyTo, correlationId, userId } = message.properties as {
      replyTo?: unknown;
      correlationId?: unknown;
      userId?: unknown;
    };
    const reply = (answer: RpcReply, type: unknown) => {
      // A caller that is gone makes the direct reply-to route vanish; RabbitMQ then drops the reply.
      if (typeof replyTo !== 'string' || replyTo === '') return;
      channel.publish('', replyTo, encodeJson(answer), {
        correlationId: typeof correlationId === 'string' ? correlationId : undefined,
        contentType: 'application/json',
        type: typeof type === 'string' ? type : undefined,
      });
    };
    const request: AnswerRequest = {
      userId,
      fallbackId: String(message.properties.messageId ?? 'unknown'),
      deadline: Number.isFinite(deadline) ? deadline : undefined,
      headers: message.properties.headers,
      batched: false,
    };
    let body: unknown;
    try {
      body = decodeJson(message.content);
    } catch {
      body = undefined;
    }
    if (isBatch(body)) {
      await this.answerBatch(channel, body, { ...request, batched: true }, (answer) => reply(answer, systemBatch.type));
    } else {
      // Undefined only when the body is not JSON: decoding again reports why.
      const answer = await this.answer(() => body ?? decodeJson(message.content), request);
      this.settle(channel, () => reply(answer, message.properties.type));
    }
    this.settle(channel, () => channel.ack(message));
  }

  /**
   * The requests of a `system.batch.v1`, each answered as if it had come alone, under its own id.
   * Answers that are ready in the same turn go back in one reply, so a slow request never holds back
   * the others; the batch is acked once every request inside is answered.
   */
  private async answerBatch(
    channel: Channel,
    body: unknown,
    request: AnswerRequest,
    replyTogether: (answer: RpcReply) => void,
  ): Promise<void> {
    let requests: unknown[];
    try {
      assertEnvelope(body);
      assertPayload(systemBatch, body.payload);
      requests = (body.payload as { requests: unknown[] }).requests;
    } catch (error) {
      // Nothing inside ran: the client sends the requests again one by one.
      this.settle(channel, () => replyTogether({ ok: false, error: toErrorBody(error, request.fallbackId).body }));
      return;
    }
    const answers = new TurnBatches<{ correlation_id: string; reply: RpcReply }>((replies) =>
      this.settle(channel, () => replyTogether({ ok: true, result: { replies } })),
    );
    await Promise.all(
      requests.map(async (inner) => {
        const answer = await this.answer(() => inner, { ...request, fallbackId: messageIdOf(inner) });
        answers.add('', { correlation_id: messageIdOf(inner), reply: answer });
      }),
    );
    // The last answers go now, before the ack.
    answers.drain();
  }

  private async answer(
    read: () => unknown,
    { userId, fallbackId, deadline, headers, batched }: AnswerRequest,
  ): Promise<RpcReply> {
    let requestId = fallbackId;
    try {
      const envelope = read();
      assertEnvelope(envelope);
      requestId = envelope.request_id ?? envelope.message_id;
      const entry = this.handlers.get(envelope.type);
      if (!entry) throw new AppError('validation_error', `${this.deps.service} does not answer ${envelope.type}.`);
      this.assertCaller(entry.def, userId);
      assertPayload(entry.def, envelope.payload);
      const context = { requestId, orgId: envelope.org_id ?? undefined };
      const trace = rpcRequestTrace(headers, envelope.message_id, batched);
      const result = await serveTraced(envelope, this.deps.service, trace, () =>
        runWithContext(context, () => entry.handler(envelope, { deadline })),
      );
      try {
        assertReply(entry.def, result);
      } catch (error) {
        // The server broke its own contract: that is our bug, not the caller's bad input.
        throw new AppError('internal_error', `${this.deps.service} produced an invalid reply.`, { cause: error });
      }
      return { ok: true, result };
    } catch (error) {
      if (!isAppError(error) || error.status >= 500) {
        this.deps.logger.error({ err: error, request_id: requestId }, 'RPC handler failed');
      }
      return { ok: false, error: toErrorBody(error, requestId).body };
    }
  }

  /**
   * Only the declared callers may ask (e.g. credentials only to the services that call networks). The
   * user id is RabbitMQ-validated: a publish naming another user than the connection's is refused.
   */
  private assertCaller(def: RpcDef, userId: unknown): void {
    const prefix = this.deps.callerUserPrefix;
    if (prefix === undefined || def.callers === 'any') return;
    if (typeof userId === 'string' && def.callers.some((caller) => userId === `${prefix}${caller}`)) return;
    this.deps.logger.warn(
      { type: def.type, broker_user: typeof userId === 'string' ? userId : null },
      'RPC refused: caller not allowed',
    );
    throw new AppError('forbidden', `${def.type} may only be called by ${def.callers.join(', ')}.`);
  }

  private settle(channel: Channel, action: () => void): void {
    if (channel !== this.channel) return;
    try {
      action();
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not answer an RPC request on a closed channel');
    }
  }
}
