import type { MessageDefinition } from '../message-definition.ts';
import * as accounts from './accounts.messages.ts';
import * as analytics from './analytics.messages.ts';
import * as billing from './billing.messages.ts';
import * as drafts from './drafts.messages.ts';
import * as media from './media.messages.ts';
import * as publishing from './publishing.messages.ts';
import * as queue from './queue.messages.ts';
import * as recurrence from './recurrence.messages.ts';
import * as system from './system.messages.ts';
import * as webhooks from './webhooks.messages.ts';

// Every export of a `*.messages.ts` module is a definition, so adding a message to a domain is a
// one-file change; a new domain adds its module here.
const modules: Record<string, unknown>[] = [
  system,
  accounts,
  publishing,
  drafts,
  analytics,
  billing,
  webhooks,
  media,
  queue,
  recurrence,
];

function isDefinition(value: unknown): value is MessageDefinition {
  return typeof value === 'object' && value !== null && 'kind' in value && 'type' in value && 'payload' in value;
}

function buildCatalog(): Readonly<Record<string, MessageDefinition>> {
  const catalog: Record<string, MessageDefinition> = {};
  for (const def of modules.flatMap((module) => Object.values(module).filter(isDefinition))) {
    if (Object.hasOwn(catalog, def.type)) throw new Error(`Message type "${def.type}" is declared twice.`);
    catalog[def.type] = def;
  }
  return Object.freeze(catalog);
}

/** Every known message by wire type, for code that only has a type string (outbox relay, tooling). */
export const messageCatalog = buildCatalog();

export function findMessage(type: string): MessageDefinition | undefined {
  return Object.hasOwn(messageCatalog, type) ? messageCatalog[type] : undefined;
}

export { systemBatch, systemPing, systemProbe } from './system.messages.ts';
export * from './accounts.messages.ts';
