import type { RequestBody } from '@svc/sdk';

export type ApiKeyScope = NonNullable<RequestBody<'createApiKey'>['scope']>;

/** The API's default when a key is created without a scope. */
export const DEFAULT_SCOPE: ApiKeyScope = 'full';

/**
 * What each scope lets a key do, in the words the page shows. The API enforces the scopes; this
 * only names them (docs/api/README.md, createApiKey).
 */
export const SCOPES: Record<ApiKeyScope, { label: string; description: string }> = {
  full: {
    label: 'Full access',
    description:
      'Everything an API key may do: publish, schedule and cancel posts, manage accounts and media, read analytics.',
  },
  read_validate: {
    label: 'Read and validate',
    description: 'Reads (GET requests) and post validation only: it cannot publish or change anything.',
  },
};

export const SCOPE_ORDER: readonly ApiKeyScope[] = ['full', 'read_validate'];

/** The radio value back to a scope; anything else (never sent by the page's own radios) is the default. */
export function toScope(value: string): ApiKeyScope {
  return SCOPE_ORDER.find((scope) => scope === value) ?? DEFAULT_SCOPE;
}
