import type { Channel, ConsumeMessage } from 'amqplib';
import { assertEnvelope, assertPayload, assertReply, systemPing, type Envelope, type RpcContext, type RpcDef } from '@svc/contracts';
import { AppError, isAppError, toErrorBody } from '@svc/errors';
import { runWithContext, type Logger } from '@svc/logger';
import { decodeJson, encodeJson } from './amqp-message.ts';
import { ChannelConsumer } from './channel-consumer.ts';
import type { Names } from './names.ts';
import { DEADLINE_HEADER, type RpcReply } from './rpc-reply.ts';
import { declareRpcQueue, type DeclaredTopology } from './topology.ts';

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
    const reply = await this.answer(message, Number.isFinite(deadline) ? deadline : undefined);
    const { replyTo, correlationId } = message.properties as { replyTo?: unknown; correlationId?: unknown };
    this.settle(channel, () => {
      if (typeof replyTo === 'string' && replyTo !== '') {
        // A caller that is gone makes the direct reply-to route vanish; RabbitMQ then drops the reply.
        channel.publish('', replyTo, encodeJson(reply), {
          correlationId: typeof correlationId === 'string' ? correlationId : undefined,
          contentType: 'application/json',
          type: typeof message.properties.type === 'string' ? message.properties.type : undefined,
        });
      }
      channel.ack(message);
    });
  }

  private async answer(message: ConsumeMessage, deadline: number | undefined): Promise<RpcReply> {
    let requestId = String(message.properties.messageId ?? 'unknown');
    try {
      const envelope = decodeJson(message.content);
      assertEnvelope(envelope);
      requestId = envelope.request_id ?? envelope.message_id;
      const entry = this.handlers.get(envelope.type);
      if (!entry) throw new AppError('validation_error', `${this.deps.service} does not answer ${envelope.type}.`);
      this.assertCaller(entry.def, message.properties.userId);
      assertPayload(entry.def, envelope.payload);
      const context = { requestId, orgId: envelope.org_id ?? undefined };
      const result = await runWithContext(context, () => entry.handler(envelope, { deadline }));
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
    if (prefix === undefined || def.callers === undefined) return;
    if (typeof userId === 'string' && def.callers.some((caller) => userId === `${prefix}${caller}`)) return;
    this.deps.logger.warn({ type: def.type, broker_user: typeof userId === 'string' ? userId : null }, 'RPC refused: caller not allowed');
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
