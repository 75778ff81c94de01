import { validationError, type ErrorDetail } from '@svc/errors';

/**
 * Deepest nesting a request may carry. Our own schemas need 4 levels; free-form option objects get
 * room to spare. 6,000 levels once passed validation and overflowed the stack of the RPC's JSON
 * encoding (a 500, then a crash).
 */
export const MAX_INPUT_DEPTH = 32;

/**
 * Refuses what no schema catches and no store can hold: nesting deeper than MAX_INPUT_DEPTH and
 * NUL characters in any string or key (PostgreSQL text cannot store U+0000: a 500 otherwise).
 * Iterative, so the check itself cannot overflow the stack.
 */
export function assertSafeInput(location: string, value: unknown): void {
  const details: ErrorDetail[] = [];
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: `/${location}`, depth: 0 }];
  while (stack.length > 0 && details.length < 5) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) details.push({ path, message: 'must not contain NUL (\\u0000) characters' });
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      details.push({ path, message: `nests deeper than ${MAX_INPUT_DEPTH} levels` });
      continue;
    }
    for (const [key, child] of Object.entries(current)) {
      if (key.includes('\u0000')) details.push({ path, message: 'has a key containing a NUL (\\u0000) character' });
      else stack.push({ value: child, path: `${path}/${key}`, depth: depth + 1 });
    }
  }
  if (details.length > 0)
    throw validationError(`The request is invalid: ${details[0]!.path} ${details[0]!.message}.`, details);
}
