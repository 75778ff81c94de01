import type { TSchema } from '@sinclair/typebox';
import { isReadOnly } from '../auth/scope-guard.ts';
import { ErrorBody } from './common.schemas.ts';
import type { Operation } from './operation.ts';

type JsonObject = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Validation error: malformed JSON, unknown fields or invalid values.',
  401: 'Missing, invalid, expired or revoked credential.',
  402: 'Plan limit reached.',
  403: 'A valid API key on a dashboard-JWT-only endpoint, or one whose scope (`read_validate`) does not allow the operation.',
  404: 'Unknown id, or an id of another organization.',
  409: 'Conflict with the resource state.',
  413: 'Body too large.',
  415: 'Unsupported media type.',
  416: 'Range not satisfiable (Content-Range gives the size).',
  422: 'Idempotency-Key reused with another body.',
  429: 'Rate limit exceeded; see Retry-After.',
  500: 'Internal error (the message hides details; quote the request id).',
  503: 'A backing service did not answer in time.',
};

/** Plain JSON Schema (TypeBox's symbol keys vanish in the JSON round trip). */
function plain(schema: TSchema): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}

function parameters(location: 'path' | 'query' | 'header', schema: TSchema | undefined): JsonObject[] {
  if (schema === undefined) return [];
  const object = plain(schema) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (object.required ?? []).includes(name),
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }));
}

function headerParameters(headers: Record<string, TSchema> | undefined): JsonObject[] {
  return Object.entries(headers ?? {}).map(([name, schema]) => ({
    name,
    in: 'header',
    required: false,
    schema: plain(schema),
  }));
}

function errorStatuses(operation: Operation): number[] {
  const statuses = new Set(operation.errors);
  if (operation.auth !== 'none') {
    statuses.add(401);
    statuses.add(429);
  }
  if (operation.auth === 'jwt' || (operation.auth === 'api_key_or_jwt' && !isReadOnly(operation))) statuses.add(403);
  statuses.add(500);
  statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };

function successResponse(operation: Operation, status: number, schema: TSchema | null): JsonObject {
  const page = operation.htmlPages?.[status];
  if (page !== undefined) return { description: page, content: HTML_PAGE };
  if (schema !== null) return { description: 'Success.', content: { 'application/json': { schema: plain(schema) } } };
  return { description: status === 302 || status === 303 ? 'Redirect.' : 'No content.' };
}

function responses(operation: Operation): JsonObject {
  const result: JsonObject = {};
  for (const [status, schema] of Object.entries(operation.responses))
    result[status] = successResponse(operation, Number(status), schema);
  for (const status of errorStatuses(operation)) {
    const page = operation.htmlPages?.[status];
    result[String(status)] =
      page !== undefined
        ? { description: page, content: HTML_PAGE }
        : {
            description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
          };
  }
  return result;
}

function requestBody(operation: Operation): JsonObject | undefined {
  if (operation.rawBody !== undefined) {
    const type = operation.rawBody.contentType ?? 'application/json';
    return { required: true, content: { [type]: { schema: plain(operation.rawBody.schema) } } };
  }
  if (operation.body === undefined) return undefined;
  const content: JsonObject = { 'application/json': { schema: plain(operation.body) } };
  for (const type of operation.rawBodyTypes ?? []) content[type] = { schema: { type: 'string', format: 'binary' } };
  return { required: operation.optionalBody !== true, content };
}

function security(operation: Operation): JsonObject[] {
  if (operation.auth === 'none') return [];
  return operation.auth === 'jwt' ? [{ dashboardJwt: [] }] : [{ apiKey: [] }, { dashboardJwt: [] }];
}

/** The OpenAPI 3.1 document of the whole public API, built from the operation declarations. */
export function buildOpenApiDocument(operations: readonly Operation[], serverUrl: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const operation of operations) {
    const body = requestBody(operation);
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = {
      operationId: operation.operationId,
      summary: operation.summary,
      tags: [operation.tag],
      security: security(operation),
      parameters: [
        ...parameters('path', operation.params),
        ...parameters('query', operation.query),
        ...headerParameters(operation.headers),
      ],
      ...(body === undefined ? {} : { requestBody: body }),
      responses: responses(operation),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Unified Social Publishing API',
      version: '1.0.0',
      description: 'Publish and schedule posts to Instagram, Facebook, X, LinkedIn and TikTok through one API.',
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ErrorBody: plain(ErrorBody) },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: `Authorization: Bearer svc_...`.' },
        dashboardJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Dashboard JWT with `sub`, `org_id` and `exp`.',
        },
      },
    },
  };
}
