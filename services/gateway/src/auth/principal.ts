/** Who is calling, once authenticated. Every tenant-scoped use case receives `orgId` from here. */
export type Principal =
  { kind: 'jwt'; orgId: string; userId: string } | { kind: 'api_key'; orgId: string; apiKeyId: string };

/** The rate-limit bucket of a principal: the API key, or the dashboard user. */
export function callerKey(principal: Principal): string {
  return principal.kind === 'api_key' ? `key:${principal.apiKeyId}` : `user:${principal.orgId}:${principal.userId}`;
}
