import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runWithContext } from '@svc/logger';
import { ATTR, tagActiveSpan } from '@svc/tracing';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Echoes a well-formed incoming X-Request-Id or makes one; every log line of the request carries it,
 * and so does the request's trace (`request.id` on its HTTP span).
 */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const id = incoming !== undefined && ACCEPTABLE.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  tagActiveSpan({ [ATTR.requestId]: id });
  runWithContext({ requestId: id }, next);
}

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'unknown';
}
