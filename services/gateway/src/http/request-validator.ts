import type { TSchema } from '@sinclair/typebox';
import { validationError, type ErrorDetail } from '@svc/errors';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Operation } from '../openapi/operation.ts';

// Bodies are taken as sent (no coercion: "1" is not 1); path and query values are strings on the
// wire, so they are coerced to the declared types.
const bodyAjv = addFormats(new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false }));
const urlAjv = addFormats(new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false }));
const responseAjv = addFormats(new Ajv({ allErrors: true, strict: false }));

function describe(location: string, error: ErrorObject): ErrorDetail {
  const path = `/${location}${error.instancePath}`;
  switch (error.keyword) {
    case 'additionalProperties': {
      const field = (error.params as { additionalProperty: string }).additionalProperty;
      return { path: `${path}/${field}`, message: `unknown field "${field}"` };
    }
    case 'required': {
      const field = (error.params as { missingProperty: string }).missingProperty;
      return { path: `${path}/${field}`, message: `"${field}" is required` };
    }
    case 'enum':
      return {
        path,
        message: `must be one of: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`,
      };
    default:
      return { path, message: error.message ?? 'is invalid' };
  }
}

function check(validate: ValidateFunction | undefined, location: string, value: unknown): ErrorDetail[] {
  if (validate === undefined || validate(value)) return [];
  // anyOf/if wrappers repeat what their branches already said.
  return (validate.errors ?? []).filter((error) => error.keyword !== 'anyOf').map((error) => describe(location, error));
}

export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** Validates (and fills defaults into) the parts of a request an operation declares. */
export function createRequestValidator(
  operation: Operation,
): (parts: RequestParts, options?: { skipBody?: boolean }) => void {
  const params = operation.params === undefined ? undefined : urlAjv.compile(operation.params);
  const query = operation.query === undefined ? undefined : urlAjv.compile(operation.query);
  const body = operation.body === undefined ? undefined : bodyAjv.compile(operation.body);
  return (parts, options = {}) => {
    const details = [
      ...check(params, 'params', parts.params),
      ...check(query, 'query', parts.query),
      ...(options.skipBody === true ? [] : check(body, 'body', parts.body)),
    ];
    if (operation.query === undefined) {
      for (const name of Object.keys(parts.query))
        details.push({ path: `/query/${name}`, message: `unknown query parameter "${name}"` });
    }
    if (details.length > 0) {
      const [first] = details;
      throw validationError(`The request is invalid: ${first!.path} ${first!.message}.`, details);
    }
  };
}

/** Checks a handler's response against the declared schema (used in tests to stop contract drift). */
export function createResponseValidator(schema: TSchema): (value: unknown) => ErrorDetail[] {
  const validate = responseAjv.compile(schema);
  return (value) => check(validate, 'response', value);
}
