import { forbidden } from '@svc/errors';
import type { Operation } from '../openapi/operation.ts';
import type { Principal } from './principal.ts';

/** Whether an operation changes nothing: every GET, and the others declared `readOnly` (validation). */
export const isReadOnly = (operation: Pick<Operation, 'method' | 'readOnly'>): boolean =>
  operation.method === 'get' || operation.readOnly === true;

/**
 * Refuses what an API key's scope does not allow. Called for every authenticated operation by the
 * route mounting (mount-routes.ts), so an endpoint added later is covered without a line of its own.
 */
export function assertScopeAllows(principal: Principal, operation: Operation): void {
  if (principal.kind !== 'api_key' || principal.scope === 'full' || isReadOnly(operation)) return;
  throw forbidden(
    `This API key's scope is ${principal.scope}: it can read and validate, not ${operation.method.toUpperCase()} ${operation.path}. Use a key with scope full.`,
  );
}
