import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError, type ErrorDetail } from '@svc/errors';
import type { Envelope } from './envelope.ts';
import { EnvelopeSchema } from './envelope-schema.ts';
import type { MessageDefinition, RpcDef } from './message-definition.ts';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on `.default`.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/** Messages are validated exactly as sent: no coercion, no defaults, so both ends agree on the bytes. */
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

const compiled = new WeakMap<TSchema, ValidateFunction>();

function validatorFor(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function toDetail(prefix: string, error: ErrorObject): ErrorDetail {
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const path = `${prefix}${error.instancePath}${error.keyword === 'required' && missing ? `/${missing}` : ''}`;
  return { path: path || '/', message: error.message ?? 'is invalid' };
}

function check(schema: TSchema, value: unknown, prefix: string, message: string): void {
  const validate = validatorFor(schema);
  if (validate(value)) return;
  const details = (validate.errors ?? []).map((error) => toDetail(prefix, error));
  throw new AppError('validation_error', message, { details });
}

export function assertPayload(def: MessageDefinition, payload: unknown): void {
  check(def.payload, payload, '/payload', `The payload of message ${def.type} is invalid.`);
}

export function assertReply(def: RpcDef, reply: unknown): void {
  check(def.reply, reply, '/reply', `The reply to message ${def.type} is invalid.`);
}

export function assertEnvelope(value: unknown): asserts value is Envelope {
  check(EnvelopeSchema, value, '', 'The message envelope is invalid.');
}
