// The API's contract as the SDK sees it, derived from the generated OpenAPI document and its types
// (scripts/generate-sdk.mjs): nothing here names an endpoint's shape by hand.
import type { operations } from './generated/api.ts';
import openApiDocument from './generated/openapi.json';

export type { operations, paths, components } from './generated/api.ts';
export { openApiDocument };

/** Every operation of the API, by its OpenAPI `operationId`. */
export type OperationId = keyof operations;

type OperationParameters<O extends OperationId> = operations[O]['parameters'];
type Defined<T> = Exclude<T, undefined>;

/** Path parameters of an operation (`never` when it has none). */
export type PathParams<O extends OperationId> = Defined<OperationParameters<O>['path']>;
/** Query parameters of an operation (`never` when it has none). */
export type QueryParams<O extends OperationId> = Defined<OperationParameters<O>['query']>;
/** The JSON request body of an operation (`never` when it takes none). */
export type RequestBody<O extends OperationId> = JsonBody<Defined<operations[O]['requestBody']>>;
type JsonBody<R> = [R] extends [never]
  ? never
  : R extends { content: { 'application/json': infer Body } }
    ? Body
    : never;

type SuccessStatus = 200 | 201 | 202 | 204;
type JsonContent<R> = R extends { content: { 'application/json': infer Body } } ? Body : undefined;
/** What a successful call of an operation returns: its 2xx JSON body, or `undefined` for 204. */
export type ResponseData<O extends OperationId> = {
  [S in keyof operations[O]['responses']]: S extends SuccessStatus ? JsonContent<operations[O]['responses'][S]> : never;
}[keyof operations[O]['responses']];

/** Where one operation lives and whether repeating it is harmless. */
export interface OperationRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  /**
   * True when sending the request again after an unknown outcome cannot do the work twice: reads and
   * deletes, and POSTs whose operation declares `Idempotency-Key` (the gateway answers a repeat with
   * the first answer, docs/api-conventions.md, "Idempotency").
   */
  repeatable: boolean;
}

interface DocumentOperation {
  operationId: string;
  parameters?: { name: string; in: string }[];
}

function routesOf(document: { paths: Record<string, Record<string, DocumentOperation>> }): Map<string, OperationRoute> {
  const routes = new Map<string, OperationRoute>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const upper = method.toUpperCase() as OperationRoute['method'];
      const idempotencyKey = (operation.parameters ?? []).some(
        (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
      );
      const repeatable = upper === 'GET' || upper === 'DELETE' || (upper === 'POST' && idempotencyKey);
      routes.set(operation.operationId, { method: upper, path, repeatable });
    }
  }
  return routes;
}

const routes = routesOf(openApiDocument as unknown as Parameters<typeof routesOf>[0]);

/** The method, path template and repeatability of an operation; throws for an unknown id. */
export function routeOf(operationId: string): OperationRoute {
  const route = routes.get(operationId);
  if (route === undefined)
    throw new TypeError(`Unknown operation "${operationId}": not in the API's OpenAPI document.`);
  return route;
}
