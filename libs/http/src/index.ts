export { BlockedAddressError, checkUrl, isBlockedAddress, safeAgents, type SsrfPolicy, type UrlCheck } from './ssrf-guard.ts';
export { boundedFetch, readBounded, FetchLimitError, type BoundedFetchOptions, type BoundedResponse, type FetchFailureReason } from './bounded-fetch.ts';
