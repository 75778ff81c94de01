import { invalidParam, missingParam } from './stripe-errors.ts';
import { type Metadata } from './stripe-objects.ts';

/**
 * Reading Stripe's form-encoded parameters (`metadata[org_id]=...`, `line_items[0][price]=...`, parsed
 * by the extended body parser into objects and arrays). Parameters the sandbox does not model are
 * accepted and ignored; the ones it models are checked as Stripe checks them.
 */
export type Params = Record<string, unknown>;

export function paramsOf(value: unknown): Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Params) : {};
}

export function optionalString(params: Params, name: string, maxLength = 5000): string | null {
  const value = params[name];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw invalidParam(name, `Invalid string: ${name} must be a string.`);
  if (value.length > maxLength)
    throw invalidParam(name, `Invalid string: ${value.slice(0, 20)}...; must be at most ${maxLength} characters`);
  return value;
}

export function requiredString(params: Params, name: string): string {
  const value = optionalString(params, name);
  if (value === null) throw missingParam(name);
  return value;
}

export function optionalUrl(params: Params, name: string): string | null {
  const value = optionalString(params, name, 5000);
  if (value === null) return null;
  if (!/^https?:\/\/[^\s]+$/.test(value)) throw invalidParam(name, 'Not a valid URL', 'url_invalid');
  return value;
}

export function optionalBoolean(params: Params, name: string): boolean | null {
  const value = params[name];
  if (value === undefined) return null;
  if (value === 'true' || value === true) return true;
  if (value === 'false' || value === false) return false;
  throw invalidParam(name, `Invalid boolean: ${String(value)}`, 'parameter_invalid_boolean');
}

export function positiveInteger(params: Params, name: string, fallback: number, label = name): number {
  const value = params[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw invalidParam(label, `Invalid positive integer`, 'parameter_invalid_integer');
  return number;
}

/** Stripe's metadata: up to 50 keys of at most 40 characters, string values of at most 500; `''` unsets a key. */
export function metadataOf(params: Params, name = 'metadata'): Metadata {
  const value = params[name];
  if (value === undefined || value === '') return {};
  const entries = Object.entries(paramsOf(value));
  if (typeof value !== 'object' || entries.length > 50)
    throw invalidParam(
      name,
      'Invalid metadata: an object of at most 50 string keys and values.',
      'parameter_invalid_empty',
    );
  for (const [key, inner] of entries) {
    if (typeof inner !== 'string' || key.length > 40 || inner.length > 500)
      throw invalidParam(
        `${name}[${key}]`,
        'Metadata keys must be at most 40 characters and values strings of at most 500.',
      );
  }
  return Object.fromEntries(entries) as Metadata;
}
