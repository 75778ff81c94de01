import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxState } from '../state/sandbox-state.ts';
import { type NetworkName } from '../state/types.ts';

/**
 * Every route that creates a post marks its response (TikTok's init too, whose post is listed once
 * TikTok has processed it), so `lost_response`/`slow_response` apply to exactly those calls.
 */
export function markPostCreated(res: Response, network: NetworkName): void {
  res.locals.createdPost = network;
}

/**
 * The uncertain outcomes of docs/api-conventions.md, "Sandbox faults", for every network at once: a successful answer
 * of a call that created a post (its route marked it) consumes the network's next outcome fault. `lost_response`
 * destroys the socket instead of answering: the post exists and the client sees a reset. `slow_response` answers only
 * after the fault's delay, when a client with a sane timeout has given up. Without a fault, such an answer waits the
 * network's create latency (`createLatencyMs`, set through `/__sandbox/latency`), if any.
 */
export function outcomeFaults(state: SandboxState): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const send = res.send.bind(res);
    let decided = false;
    res.send = (body?: unknown) => {
      if (decided) return send(body);
      decided = true;
      const network = res.locals.createdPost as NetworkName | undefined;
      const created = res.statusCode >= 200 && res.statusCode < 300 && network !== undefined;
      const fault = created ? state.outcomeFaults.take([network]) : undefined;
      const latencyMs = created ? (state.createLatencyMs.get(network) ?? 0) : 0;
      if (fault?.fault === 'lost_response') {
        req.socket.destroy();
        return res;
      }
      const delayMs = fault?.fault === 'slow_response' ? fault.retryAfterSeconds * 1000 : latencyMs;
      if (delayMs > 0) {
        const timer = setTimeout(() => {
          if (!req.socket.destroyed) send(body);
        }, delayMs);
        res.on('close', () => clearTimeout(timer));
        return res;
      }
      return send(body);
    };
    next();
  };
}
