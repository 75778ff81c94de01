import type { Static, TSchema } from '@sinclair/typebox';

/**
 * Wire names are `<domain>.<...>.v<N>`. A name never changes in place: a breaking change ships as a
 * new version next to the old one, because consumers in flight still speak the old one.
 */
export type WireName = `${string}.v${number}`;

const WIRE_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+\.v[1-9][0-9]*$/;

export interface RetryPolicy {
  /** Overrides the broker's maxRetries, e.g. 0 for an irreversible action that must never be blindly repeated. */
  maxRetries?: number;
}

/** Published to the events exchange with routing key = type; any number of queues may subscribe. */
export interface EventDefinition<T extends WireName = WireName, P extends TSchema = TSchema> {
  kind: 'event';
  type: T;
  payload: P;
  description?: string;
  retry?: RetryPolicy;
}

/** Published to the commands exchange with routing key = type; one owning service consumes it. */
export interface CommandDefinition<T extends WireName = WireName, P extends TSchema = TSchema> {
  kind: 'command';
  type: T;
  payload: P;
  description?: string;
  retry?: RetryPolicy;
}

/**
 * A request answered by `service`. `service` is undefined for requests every service answers (ping):
 * the caller names the target then. `<service>.<lane>` names a separate lane of that service: its own
 * queue and prefetch (`Broker.serveRpc` with `lane`).
 */
export interface RpcDefinition<
  T extends WireName = WireName,
  P extends TSchema = TSchema,
  R extends TSchema = TSchema,
> {
  kind: 'rpc';
  type: T;
  service: string | undefined;
  payload: P;
  reply: R;
  description?: string;
  /**
   * The services allowed to call it, declared on every RPC. Where brokers verify callers (one broker
   * user per service, see docs/security.md), a request from any other service is refused. `'any'`
   * only for the transport's own requests (ping, batch), which every service answers and sends.
   */
  callers: readonly string[] | 'any';
}

export type MessageDefinition = EventDefinition | CommandDefinition | RpcDefinition;
export type EventOrCommandDef = EventDefinition | CommandDefinition;
export type RpcDef = RpcDefinition;

export type PayloadOf<D extends MessageDefinition> = Static<D['payload']>;
export type ReplyOf<D extends RpcDef> = Static<D['reply']>;
export type TypeOf<D extends MessageDefinition> = D['type'];

/** Declares a message. The identity function keeps the literal type and schema types flowing. */
export function defineMessage<const D extends MessageDefinition>(def: D): D {
  if (!WIRE_NAME.test(def.type)) {
    throw new Error(
      `Message type "${def.type}" must be lower-case dotted words ending in a version such as ".v1" (e.g. "post.published.v1").`,
    );
  }
  if (def.kind === 'rpc' && def.service !== undefined && !/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)?$/.test(def.service)) {
    throw new Error(`RPC message "${def.type}" names an invalid service "${def.service}".`);
  }
  return Object.freeze(def);
}
