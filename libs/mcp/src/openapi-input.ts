/**
 * A tool's input JSON Schema, derived from the served OpenAPI document: the operation's path
 * parameters, query parameters and JSON body merged into one object schema, with every local `$ref`
 * resolved. Nothing here declares a field: the gateway's operations are the one declaration, so a
 * field added to the API reaches agents without a change here.
 */

type Json = Record<string, unknown>;

/** An OpenAPI 3.1 document, as served at `GET /v1/openapi.json`. */
export type OpenApiDocument = Json & { paths?: Record<string, Record<string, unknown>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof METHODS)[number];

/** Where an operation lives, and where each of its input fields goes. */
export interface OperationInput {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, e.g. `/v1/posts/{post_id}/cancel`. */
  path: string;
  /** The merged input schema: `{type: 'object', properties, required}`. */
  inputSchema: { type: 'object'; properties: Record<string, Json>; required?: string[] } & Json;
  pathParams: string[];
  queryParams: string[];
  /** Whether the operation takes a JSON body; its fields are every property not a parameter. */
  hasBody: boolean;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Resolves `#/...` references (JSON pointers into the document), refusing cycles. */
function resolveRefs(value: unknown, document: Json, seen: readonly string[] = []): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, document, seen));
  if (!isObject(value)) return value;
  const ref = value.$ref;
  if (typeof ref === 'string') {
    if (!ref.startsWith('#/')) throw new Error(`Only local $refs can be resolved, not ${ref}.`);
    if (seen.includes(ref)) throw new Error(`The $ref ${ref} refers to itself.`);
    let target: unknown = document;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? target[key] : undefined;
    }
    if (target === undefined) throw new Error(`The $ref ${ref} points at nothing.`);
    const { $ref: _ref, ...siblings } = value;
    const resolved = resolveRefs(target, document, [...seen, ref]);
    return isObject(resolved) ? { ...resolved, ...(resolveRefs(siblings, document, seen) as Json) } : resolved;
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveRefs(item, document, seen)]));
}

function findOperation(document: OpenApiDocument, operationId: string): { method: HttpMethod; path: string; op: Json } {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (isObject(op) && op.operationId === operationId) return { method, path, op };
    }
  }
  throw new Error(`The OpenAPI document has no operation ${operationId}.`);
}

/** The object schema of the JSON body (only `application/json`: uploads are not tool input). */
function jsonBodySchema(op: Json, document: Json): Json | undefined {
  const body = resolveRefs(op.requestBody, document);
  if (!isObject(body) || !isObject(body.content)) return undefined;
  const json = body.content['application/json'];
  if (!isObject(json) || !isObject(json.schema)) return undefined;
  const schema = json.schema;
  if (schema.type !== 'object' || !isObject(schema.properties))
    throw new Error(`The JSON body of ${String(op.operationId)} is not an object schema.`);
  return schema;
}

/** Derives where an operation lives and its merged input schema; throws when the document lacks it. */
export function operationInput(document: OpenApiDocument, operationId: string): OperationInput {
  const { method, path, op } = findOperation(document, operationId);
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  const add = (name: string, schema: Json, isRequired: boolean) => {
    if (Object.hasOwn(properties, name))
      throw new Error(`${operationId}: the input field ${name} is declared twice (parameter and body).`);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  const parameters = resolveRefs(op.parameters ?? [], document);
  for (const parameter of Array.isArray(parameters) ? parameters : []) {
    if (!isObject(parameter) || typeof parameter.name !== 'string') continue;
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const schema = isObject(parameter.schema) ? { ...parameter.schema } : {};
    if (typeof parameter.description === 'string' && schema.description === undefined)
      schema.description = parameter.description;
    add(parameter.name, schema, parameter.in === 'path' || parameter.required === true);
    (parameter.in === 'path' ? pathParams : queryParams).push(parameter.name);
  }
  const body = jsonBodySchema(op, document);
  if (body !== undefined) {
    const bodyRequired = Array.isArray(body.required) ? (body.required as string[]) : [];
    for (const [name, schema] of Object.entries(body.properties as Record<string, Json>))
      add(name, schema, bodyRequired.includes(name));
  }
  // Body-level keywords that bind fields together (e.g. "provider or platform") stay with them.
  const extra: Json = {};
  if (body !== undefined) {
    for (const keyword of ['anyOf', 'oneOf', 'allOf', 'not', 'dependentRequired'] as const)
      if (body[keyword] !== undefined) extra[keyword] = body[keyword];
  }
  return {
    operationId,
    method,
    path,
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...extra,
      additionalProperties: false,
    },
    pathParams,
    queryParams,
    hasBody: body !== undefined,
  };
}
