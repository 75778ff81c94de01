import { type Static, type TObject } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';

/** Every problem with the environment at once, so an operator fixes them in one pass. */
export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, removeAdditional: false, strict: false });

function describe(error: ErrorObject): string {
  const name = error.instancePath.replace(/^\//, '') || (error.params as { missingProperty?: string }).missingProperty;
  if (error.keyword === 'required') {
    return `${(error.params as { missingProperty: string }).missingProperty} is required but not set`;
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.join(', ');
    return `${name} must be one of: ${allowed}`;
  }
  return `${name} ${error.message ?? 'is invalid'}`;
}

/**
 * Reads the environment once, at start-up. The schema's keys are the variable names; values are
 * coerced (numbers, booleans) and defaults applied. Variables the schema does not name are ignored.
 * `refine` adds cross-field rules (e.g. "JWT_SECRET is required when JWT_ALGORITHM is HS256").
 */
export function loadConfig<S extends TObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
  refine?: (config: Static<S>) => string[],
): Static<S> {
  const candidate: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') candidate[key] = value;
  }
  const validate = ajv.compile(schema);
  const problems = validate(candidate) ? [] : [...new Set((validate.errors ?? []).map(describe))];
  if (problems.length === 0 && refine) problems.push(...refine(candidate as Static<S>));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(candidate) as Static<S>;
}
