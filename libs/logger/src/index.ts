export { createLogger, type Logger, type LoggerOptions } from './create-logger.ts';
export { runWithContext, currentContext, type RequestContext } from './request-context.ts';
