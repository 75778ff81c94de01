export {
  networks,
  networkLabels,
  isNetwork,
  type Network,
  type OAuthApp,
  type TokenSet,
  type PkceRequirement,
  type AuthorizeUrlInput,
  type OAuthCapability,
  type AccountExtras,
  type Profile,
  type ProfileCapability,
  type AuthorsCapability,
  type Credentials,
  type MediaKind,
  type MediaInput,
  type MediaSource,
  type ByteSpan,
  type PublishInput,
  type PublishResult,
  type PublishCapability,
  type PostMetrics,
  type ContentViolation,
  type ContentInput,
  type ContentRules,
  type ProviderAdapter,
  type LookupInput,
  type LookupResult,
  type LookupCapability,
  type CommentInput,
  type CommentLookupInput,
  type CommentLookupResult,
  type CommentCapability,
} from './types.ts';
export {
  ProviderError,
  isProviderError,
  errorKinds,
  type ProviderErrorKind,
  type Classification,
} from './errors/provider-error.ts';
export { providerConfigSchema, providerConfigObjectSchema, type ProviderConfig } from './config.ts';
export { providersFromConfig, type Providers, type ProvidersOptions } from './providers-from-config.ts';
export { contentRules, checkContent } from './rules/content-rules.ts';
export { contentCapabilities, type ContentCapabilities } from './rules/capabilities.ts';
export { postFeatures, checkFirstComment } from './rules/post-features.ts';
export { xTextLimit, xWeightedLength } from './rules/x-text.ts';
export { ruleExtrasOf } from './rules/rule-extras.ts';
export { TIKTOK_PRIVACY_LEVELS } from './tiktok/tiktok.rules.ts';
export { tiktokVerifiedPrefixes } from './tiktok/verified-prefixes.ts';
export { isVerifiedUrl as isTikTokVerifiedUrl, chunkPlan as tiktokChunkPlan } from './tiktok/tiktok.publish.ts';
export { createMediaFetcher, type MediaFetcher, type FetchedMedia } from './http/media-fetcher.ts';
export { type PollingOptions } from './http/poll.ts';
export { type PostAnalyticsCapability, type PostReading, type AnalyticsBatch } from './analytics/analytics-types.ts';
export { analyticsFromConfig, type NetworkAnalytics } from './analytics-from-config.ts';
export { LINKEDIN_SCOPES, linkedinAuthorTypes, type LinkedInAuthorType } from './linkedin/linkedin.scopes.ts';
export { altTextRules, checkAltText } from './rules/alt-text.ts';
export { postKinds, type PostKindShape } from './rules/post-kinds.ts';
