import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { FaultQueue } from '../state/fault-queue.ts';
import { type SandboxState } from '../state/sandbox-state.ts';
import { type FaultKind, type NetworkName, type OutcomeFaultKind } from '../state/types.ts';
import { type FaultRenderer } from './fault-gate.ts';

/**
 * Kinds of call a fault can be armed for alone (docs/api-conventions.md, "Sandbox faults"): `reply`,
 * an X post answering another (a thread's later part, a first comment on X); `comment`, a comment
 * under a post (Graph, LinkedIn); `lookup`, X's timeline read, which is how an uncertain post is
 * looked up. Unscoped faults take the network's next call whatever it is, which cannot single out the
 * third part of a thread, the comment made right after its post, or the lookups after a lost answer.
 */
export const FAULT_SCOPES = ['reply', 'comment', 'lookup'] as const;
export type FaultScope = (typeof FAULT_SCOPES)[number];

/** `pass` lets one call of the scope through: `after` of them come before the fault itself. */
type ScopedKind = FaultKind | OutcomeFaultKind | 'pass';

const STORE = 'sandbox.scoped_faults';

/** One queue per scope, kept among the state's stores so `/__sandbox/reset` clears them with the rest. */
function queueOf(state: SandboxState, scope: FaultScope): FaultQueue<ScopedKind> {
  const queues = state.store<FaultQueue<ScopedKind>>(STORE);
  let queue = queues.get(scope);
  if (queue === undefined) {
    queue = new FaultQueue<ScopedKind>();
    queues.set(scope, queue);
  }
  return queue;
}

/** Arms `count` faults for the network's calls of one scope, after `after` such calls have passed. */
export function armScopedFault(
  state: SandboxState,
  armed: {
    network: NetworkName;
    scope: FaultScope;
    fault: FaultKind | OutcomeFaultKind;
    count: number;
    after: number;
    seconds: number;
  },
): void {
  const queue = queueOf(state, armed.scope);
  if (armed.after > 0) queue.push(armed.network, 'pass', armed.after, 0);
  queue.push(armed.network, armed.fault, armed.count, armed.seconds);
}

export function pendingScopedFaults(
  state: SandboxState,
): { network: NetworkName; fault: ScopedKind; remaining: number; on: FaultScope }[] {
  return FAULT_SCOPES.flatMap((scope) =>
    queueOf(state, scope)
      .pending()
      .map((item) => ({ ...item, on: scope })),
  );
}

export interface ScopedGateOptions {
  state: SandboxState;
  network: NetworkName;
  /** The call's scope, or undefined when the call belongs to none (scoped faults leave it alone). */
  scopeOf: (req: Request) => FaultScope | undefined;
  render: FaultRenderer;
  /** How long a `timeout` hangs before the socket is dropped (the sandbox's `timeoutFaultMs`). */
  hangMs: number;
}

/**
 * Consumes the next fault armed for this call's scope. An error fault answers instead of the route,
 * in the network's shape; `timeout` hangs, then drops the connection; `lost_response` and
 * `slow_response` let the route create its object and then drop or delay a successful answer, as the
 * unscoped outcome faults do for posts (http/outcome-faults.ts).
 */
export function scopedFaultGate(options: ScopedGateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const scope = options.scopeOf(req);
    const fault = scope === undefined ? undefined : queueOf(options.state, scope).take([options.network]);
    if (fault === undefined || fault.fault === 'pass') return next();
    if (fault.fault === 'lost_response' || fault.fault === 'slow_response') {
      spoilAnswer(req, res, fault.fault, fault.retryAfterSeconds * 1000);
      return next();
    }
    if (fault.fault === 'timeout') {
      const timer = setTimeout(() => req.socket.destroy(), options.hangMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    options.render(
      { network: options.network, fault: fault.fault, retryAfterSeconds: fault.retryAfterSeconds },
      req,
      res,
    );
  };
}

/** A successful answer is dropped (the object exists, the client sees a reset) or sent `delayMs` late. */
function spoilAnswer(req: Request, res: Response, fault: OutcomeFaultKind, delayMs: number): void {
  const send = res.send.bind(res);
  let decided = false;
  res.send = (body?: unknown) => {
    if (decided) return send(body);
    decided = true;
    if (res.statusCode < 200 || res.statusCode >= 300) return send(body);
    if (fault === 'lost_response') {
      req.socket.destroy();
      return res;
    }
    const timer = setTimeout(() => {
      if (!req.socket.destroyed) send(body);
    }, delayMs);
    res.on('close', () => clearTimeout(timer));
    return res;
  };
}
