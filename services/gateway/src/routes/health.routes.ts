import { operations } from '../openapi/operations.ts';
import { defineRoute, type Route } from '../http/route.ts';

export function healthRoutes(openApiDocument: Record<string, unknown>): Route[] {
  return [
    defineRoute(operations.health, () => Promise.resolve({ status: 200, body: { status: 'ok' } })),
    defineRoute(operations.openapi, () => Promise.resolve({ status: 200, body: openApiDocument })),
  ];
}
