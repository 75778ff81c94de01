import { notFound, validationError } from '@svc/errors';
import type { DeliveriesRepository } from '../data/deliveries.repository.ts';
import type { EndpointsRepository } from '../data/endpoints.repository.ts';
import { isUuid } from '../data/endpoints.repository.ts';
import { toDeliveryView } from './views.ts';

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    const createdAt = new Date(String(value.t));
    if (typeof value.i !== 'string' || !isUuid(value.i) || Number.isNaN(createdAt.getTime()))
      throw new Error('bad cursor');
    return { createdAt, id: value.i };
  } catch {
    throw validationError('The cursor is not valid; pass the next_cursor of a previous page.', [
      { path: '/query/cursor', message: 'is not a cursor of this list' },
    ]);
  }
}

const encodeCursor = (createdAt: Date, id: string) =>
  Buffer.from(JSON.stringify({ t: createdAt.toISOString(), i: id })).toString('base64url');

/** `total` is counted up to this many deliveries (a bounded index scan per call). */
export const DELIVERIES_TOTAL_BOUND = 10_000;

/**
 * An endpoint's deliveries, newest first (keyset pagination), each with its latest `attemptsListed`
 * attempts and the number of earlier ones left out; `total` counted up to DELIVERIES_TOTAL_BOUND.
 */
export async function listDeliveries(
  deps: { endpoints: EndpointsRepository; deliveries: DeliveriesRepository; attemptsListed: number },
  input: { orgId: string; endpointId: string; limit: number; cursor?: string | undefined },
) {
  const endpoint = await deps.endpoints.find(input.orgId, input.endpointId);
  if (endpoint === null) throw notFound('The webhook endpoint');
  const after = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const [rows, total] = await Promise.all([
    deps.deliveries.page(input.orgId, endpoint.id, input.limit, deps.attemptsListed, after),
    deps.deliveries.countUpTo(input.orgId, endpoint.id, DELIVERIES_TOTAL_BOUND),
  ]);
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    items: page.map(toDeliveryView),
    next_cursor: rows.length > input.limit && last !== undefined ? encodeCursor(last.createdAt, last.id) : null,
    total: total.count,
    total_exact: total.exact,
  };
}
