export { newId } from './ids.ts';
export { createEnvelope, type Envelope, type EnvelopeContext } from './envelope.ts';
export { EnvelopeSchema } from './envelope-schema.ts';
export {
  defineMessage,
  type WireName,
  type RetryPolicy,
  type EventDefinition,
  type CommandDefinition,
  type RpcDefinition,
  type MessageDefinition,
  type EventOrCommandDef,
  type RpcDef,
  type PayloadOf,
  type ReplyOf,
  type TypeOf,
} from './message-definition.ts';
export { assertPayload, assertReply, assertEnvelope } from './validation.ts';
export type { Handlers, RpcHandlers, DeliveryContext, RpcContext } from './handlers.ts';
export { messageCatalog, findMessage, systemBatch, systemPing, systemProbe } from './catalog/index.ts';
export * from './catalog/accounts.messages.ts';
export * from './catalog/publishing.messages.ts';
export * from './catalog/drafts.messages.ts';
export * from './catalog/analytics.messages.ts';
export {
  ANALYTICS_MAX_DEPTH,
  analyticsPageTooDeep,
  AnalyticsRowView,
  AnalyticsPageView,
  SyncStatus as SyncStatusSchema,
  SYNC_STATUSES,
  type AnalyticsRowViewType,
  type AnalyticsPageViewType,
  type SyncStatusType,
} from './schemas/analytics.schemas.ts';
export * from './catalog/billing.messages.ts';
export * from './catalog/webhooks.messages.ts';
export { eventSubscriptions, subscribersOf, type SubscribedQueue } from './catalog/subscriptions.ts';
export * from './catalog/media.messages.ts';
export * from './catalog/queue.messages.ts';
export * from './catalog/recurrence.messages.ts';
export {
  MediaView,
  MediaFactsView,
  CompatibilityView,
  NetworkCompatibilityView,
  type MediaViewType,
} from './schemas/media.schemas.ts';
// Messages are declared with TypeBox; re-exported so code and tests outside this package declare
// ad-hoc messages without their own dependency on it.
export { Type, type Static, type TSchema } from '@sinclair/typebox';
export {
  AccountView,
  OAuthAppView,
  Provider as ProviderSchema,
  Health as HealthSchema,
  type AccountViewType,
} from './schemas/accounts.schemas.ts';
export {
  PostView,
  ApprovalView,
  type ApprovalViewType,
  DeliveryResultView,
  JobStatus as JobStatusSchema,
  JOB_STATUSES,
  JOB_DISPATCH_MAX_JOBS,
  BULK_MAX_POSTS,
  DELIVERY_RUN_MAX_DELIVERIES,
  POSTS_QUEUED_MAX_EVENTS,
  POSTS_QUEUED_MAX_BYTES,
  FirstCommentView,
  FIRST_COMMENT_STATUSES,
  FIRST_COMMENT_MAX_LENGTH,
  MEDIA_ALT_TEXT_MAX_LENGTH,
  THREAD_MIN_PARTS,
  THREAD_MAX_PARTS,
  ThreadPartRequest,
  ThreadPartView,
  type ThreadPartViewType,
  type FirstCommentViewType,
  type FirstCommentStatusType,
  type PostViewType,
  type DeliveryResultViewType,
  type JobStatusType,
  type DeliveryStatusType,
} from './schemas/publishing.schemas.ts';
export {
  PlanLimits,
  PlanName as PlanNameSchema,
  SubscriptionStatus as SubscriptionStatusSchema,
  PLAN_NAMES,
  SUBSCRIPTION_STATUSES,
  type PlanLimitsType,
} from './schemas/billing.schemas.ts';
export * from './schemas/webhooks.schemas.ts';
