import { randomBytes } from 'node:crypto';

/** A short name no other test run will pick: lowercase, safe for databases and AMQP names. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${randomBytes(4).toString('hex')}`.toLowerCase();
}

/** An AMQP namespace for one test file: every exchange and queue it declares starts with it. */
export function uniqueNamespace(prefix = 't'): string {
  return uniqueName(prefix).replace(/_/g, '-');
}
