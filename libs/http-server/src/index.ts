// What the services that answer HTTP with express share: request ids, the error body, draining.
export { requestId, requestIdOf } from './request-id.ts';
export { errorHandler, notFoundHandler } from './error-handler.ts';
export { closeServerStep } from './close-server.ts';
