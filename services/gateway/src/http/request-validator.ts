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

function check(validate: ValidateFunction | undefined, location: string, value: unknown, rows?: string): ErrorDetail[] {
  if (validate === undefined || validate(value)) return [];
  // anyOf/if wrappers repeat what their branches already said.
  return (validate.errors ?? [])
    .filter((error) => error.keyword !== 'anyOf')
    .map((error) => (rows === undefined ? describe(location, error) : describeRow(location, rows, error)));
}

/**
 * A problem inside one row of a body's rows (operation.rows) in the shape of the rows' other
 * problems: `{row, account_id, path, rule, message}`, row 1-based, path inside the row.
 */
function describeRow(location: string, rows: string, error: ErrorObject): ErrorDetail {
  const detail = describe(location, error);
  const inRow = new RegExp(`^/${location}${rows}/(\\d+)(/.*)?$`).exec(detail.path ?? '');
  if (inRow === null) return detail;
  return {
    row: Number(inRow[1]) + 1,
    account_id: null,
    path: inRow[2] ?? '',
    rule: error.keyword,
    message: detail.message,
  };
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
      ...(options.skipBody === true ? [] : check(body, 'body', parts.body, operation.rows)),
    ];
    if (operation.query === undefined) {
      for (const name of Object.keys(parts.query))
        details.push({ path: `/query/${name}`, message: `unknown query parameter "${name}"` });
    }
    if (details.length > 0) {
      const [first] = details;
      const where = typeof first!.row === 'number' ? `row ${first!.row} ${first!.path}` : first!.path;
      throw validationError(`The request is invalid: ${where} ${first!.message}.`, details);
    }
  };
}

/**
 * Validates one row of a bulk read from elsewhere than the JSON body (a CSV's rows) against its
 * schema, with problems in the rows' shape: `{row, account_id, path, rule, message}`.
 */
export function createRowValidator(schema: TSchema): (row: number, value: unknown) => ErrorDetail[] {
  const validate = bodyAjv.compile(schema);
  return (row, value) => {
    if (validate(value)) return [];
    return (validate.errors ?? [])
      .filter((error) => error.keyword !== 'anyOf')
      .map((error) => {
        const detail = describe('row', error);
        return {
          row,
          account_id: null,
          path: (detail.path ?? '/row').slice('/row'.length),
          rule: error.keyword,
          message: detail.message,
        };
      });
  };
}

/** Checks a handler's response against the declared schema (used in tests to stop contract drift). */
export function createResponseValidator(schema: TSchema): (value: unknown) => ErrorDetail[] {
  const validate = responseAjv.compile(schema);
  return (value) => check(validate, 'response', value);
}
