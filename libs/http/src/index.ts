export {
  BlockedAddressError,
  checkUrl,
  isBlockedAddress,
  safeAgents,
  type SsrfPolicy,
  type UrlCheck,
} from './ssrf-guard.ts';
export {
  boundedFetch,
  readBounded,
  FetchLimitError,
  type BoundedFetchOptions,
  type BoundedResponse,
  type FetchFailureReason,
} from './bounded-fetch.ts';
export {
  configureHostResolver,
  DEFAULT_DNS_TIMEOUT_MS,
  HostResolveError,
  HostResolver,
  parseDnsServers,
  processHostResolver,
  type HostResolverSettings,
  type ResolvedAddress,
} from './host-resolver.ts';
