export { Broker, type PublishContext, type ConsumeSpec, type ServeRpcSpec, type DelaySpec } from './broker.ts';
export type { BrokerOptions, BrokerMetrics, ConsumeOutcome } from './broker-options.ts';
export type { RpcCallContext } from './rpc-client.ts';
export type { RpcReply } from './rpc-reply.ts';
export { PublishError, type PublishFailure } from './publisher.ts';
export { createNames, type Names } from './names.ts';
export type { EventOrCommandDef, RpcDef, Handlers, RpcHandlers, DeliveryContext, RpcContext } from '@svc/contracts';
export { handleEachItem } from './each-item.ts';
export type { QueueDepth } from './queue-depth.ts';
