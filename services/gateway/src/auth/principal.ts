/**
 * What an API key may do: `full`, everything API keys may call; `read_validate`, only operations
 * that change nothing (every GET, and those declared `readOnly`, such as post validation), for
 * agents and dashboards that must never publish (docs/api-conventions.md, "API key scopes").
 */
export const API_KEY_SCOPES = ['full', 'read_validate'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Who is calling, once authenticated. Every tenant-scoped use case receives `orgId` from here. */
export type Principal =
  /** `orgName`: the organization's display name from the dashboard token, for pages shown to people. */
  | { kind: 'jwt'; orgId: string; userId: string; orgName?: string }
  | { kind: 'api_key'; orgId: string; apiKeyId: string; scope: ApiKeyScope };

/** The rate-limit bucket of a principal: the API key, or the dashboard user. */
export function callerKey(principal: Principal): string {
  return principal.kind === 'api_key' ? `key:${principal.apiKeyId}` : `user:${principal.orgId}:${principal.userId}`;
}

/** A stored scope this version does not know (written by a newer one) grants the least. */
export function scopeOf(stored: string): ApiKeyScope {
  return stored === 'full' ? 'full' : 'read_validate';
}
