import type { NextFunction, Request, Response } from 'express';
import { AppError, isAppError, toErrorBody } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { requestIdOf } from './request-id.ts';

/** Errors raised by express's own body parser, mapped to our codes. */
function fromBodyParser(error: unknown): AppError | undefined {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.too.large') {
    const limit = (error as { limit?: number }).limit;
    return new AppError('payload_too_large', `The request body is larger than the limit of ${limit ?? 'the'} bytes.`);
  }
  if (type === 'entity.parse.failed') return new AppError('validation_error', 'The request body is not valid JSON.');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError('unsupported_media_type', 'The request body encoding or charset is not supported.');
  }
  if (type === 'request.aborted' || type === 'request.size.invalid')
    return new AppError('validation_error', 'The request body was incomplete.');
  return undefined;
}

/**
 * The one place that shapes the error responses of a service (docs/api-conventions.md, "Errors"). 5xx log their cause, never
 * show it.
 */
export function errorHandler(logger: Logger) {
  return (error: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const appError = isAppError(error) ? error : fromBodyParser(error);
    const { status, body } = toErrorBody(appError ?? error, requestIdOf(res));
    if (status >= 500) logger.error({ err: error, request_id: body.error.request_id }, 'request failed');
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(appError?.headers ?? {})) res.setHeader(name, value);
    res.status(status).json(body);
  };
}

export function notFoundHandler(req: Request, _res: Response, next: NextFunction): void {
  next(new AppError('not_found', `There is no endpoint ${req.method} ${req.path}.`));
}
