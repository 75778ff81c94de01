import type { EventDefinition } from '../message-definition.ts';
import { accountStateChanged, connectionRevoked } from './accounts.messages.ts';
import { billingPlanChanged } from './billing.messages.ts';
import { postFailed, postPublished, postQueued, postsQueued } from './publishing.messages.ts';

/**
 * Which work queue (logical name, `<service>.<queue>`) receives which events: one entry per consuming
 * queue, so services subscribe independently (another service adds its own line, never edits one).
 * The broker declares a subscriber's queue and bindings whenever an event it receives is published,
 * so an event always has a home even before its consumers first start; consumers bind the same list.
 * An event no queue subscribes to is unroutable, and publishing it fails (never silently dropped).
 * A queue that stops subscribing lists the event as `retired` where it consumes (libs/messaging
 * ConsumeSpec), which removes the binding that the previous release made.
 */
export const eventSubscriptions = {
  // post.queued.v1 alone: what a publisher of the previous release sends (this one sends them together).
  'webhook-dispatcher.work': [postsQueued, postQueued, postPublished, postFailed, connectionRevoked],
  'analytics-sync.work': [postPublished],
  'publisher.plans': [billingPlanChanged],
  'accounts.plans': [billingPlanChanged],
  // The publisher's replica of the accounts it publishes to (read at accept time, docs/architecture.md).
  'publisher.accounts': [accountStateChanged],
} as const satisfies Record<string, readonly EventDefinition[]>;

export type SubscribedQueue = keyof typeof eventSubscriptions;

/** The work queues subscribed to an event type, each with every type it subscribes to. */
export function subscribersOf(type: string): { queue: string; types: string[] }[] {
  return Object.entries(eventSubscriptions as Record<string, readonly EventDefinition[]>)
    .filter(([, defs]) => defs.some((def) => def.type === type))
    .map(([queue, defs]) => ({ queue, types: defs.map((def) => def.type) }));
}
