import type { PayloadOf, ReplyOf, RpcDef } from '@svc/contracts';
import type { Broker } from '@svc/messaging';

/** RPC to the owning service on behalf of a request: the organization and request id travel along. */
export type RpcCaller = <D extends RpcDef>(
  def: D,
  payload: PayloadOf<D>,
  context: { orgId: string | null; requestId: string; timeoutMs?: number },
) => Promise<ReplyOf<D>>;

export function rpcCaller(broker: Broker): RpcCaller {
  return (def, payload, context) =>
    broker.rpc(def, payload, {
      orgId: context.orgId,
      requestId: context.requestId,
      ...(context.timeoutMs === undefined ? {} : { timeoutMs: context.timeoutMs }),
    });
}
