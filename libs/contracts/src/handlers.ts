import type { Envelope } from './envelope.ts';
import type { EventOrCommandDef, PayloadOf, ReplyOf, RpcDef } from './message-definition.ts';

/** What a consumer learns about one delivery besides the envelope. */
export interface DeliveryContext {
  /** True when the broker delivered this message before (a consumer died before acking): check the inbox. */
  redelivered: boolean;
  /** 1 for the first attempt, n + 1 after n business retries. */
  attempt: number;
}

export interface RpcContext {
  /** The requesting service's deadline as epoch ms; work past it is wasted, nobody waits for the answer. */
  deadline: number | undefined;
}

type DefOfType<Defs extends readonly EventOrCommandDef[], T> = Extract<Defs[number], { type: T }>;
type RpcDefOfType<Defs extends readonly RpcDef[], T> = Extract<Defs[number], { type: T }>;

/** One handler per message type; a missing or extra handler does not compile. */
export type Handlers<Defs extends readonly EventOrCommandDef[], Ctx = DeliveryContext> = {
  [T in Defs[number]['type']]: (envelope: Envelope<PayloadOf<DefOfType<Defs, T>>>, context: Ctx) => Promise<void>;
};

export type RpcHandlers<Defs extends readonly RpcDef[], Ctx = RpcContext> = {
  [T in Defs[number]['type']]: (
    envelope: Envelope<PayloadOf<RpcDefOfType<Defs, T>>>,
    context: Ctx,
  ) => Promise<ReplyOf<RpcDefOfType<Defs, T>>>;
};
