import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxState } from '../state/sandbox-state.ts';
import { tokenFamilyOf, type Fault, type NetworkName } from '../state/types.ts';
import { presentedCredential } from './presented-credential.ts';

/** Renders a fault in the network's own error shape. `timeout` never reaches it. */
export type FaultRenderer = (fault: Fault, req: Request, res: Response) => void;

export interface FaultGateOptions {
  state: SandboxState;
  /** How long a `timeout` fault hangs before the socket is dropped. */
  hangMs: number;
}

/**
 * Consumes the next armed fault of the route's network(s) and answers with it instead of the route.
 * A `timeout` hangs longer than any client timeout, then drops the connection without a response.
 * A `token_revoked` revokes the grant of the credential the call presented before answering, on
 * every network: as when a user removes the app, the token (and its refresh and Page tokens) stays
 * refused afterwards, so a client that checks the token again finds it revoked rather than working.
 */
export function faultGate(
  options: FaultGateOptions,
  networks: readonly NetworkName[],
  render: FaultRenderer,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const fault = options.state.faults.take(networks);
    if (!fault) {
      next();
      return;
    }
    res.locals.fault = fault;
    if (fault.fault === 'token_revoked') {
      const credential = presentedCredential(req);
      if (credential !== undefined) options.state.tokens.revokeGrant(tokenFamilyOf(fault.network), credential);
    }
    if (fault.fault === 'timeout') {
      const timer = setTimeout(() => req.socket.destroy(), options.hangMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    render(fault, req, res);
  };
}
