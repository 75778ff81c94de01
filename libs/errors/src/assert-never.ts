/** Ends exhaustive switches: adding a union member without handling it fails to compile. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
