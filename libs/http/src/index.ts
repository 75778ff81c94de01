export { BlockedAddressError, checkUrl, isBlockedAddress, safeAgents, type SsrfPolicy, type UrlCheck } from './ssrf-guard.ts';
