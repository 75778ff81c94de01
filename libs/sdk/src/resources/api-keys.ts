// API keys of the organization (dashboard JWT only).
import type { RequestOptions, Call } from '../call.ts';
import type { RequestBody } from '../contract.ts';
import { singlePage } from '../pagination.ts';

export function apiKeysResource(call: Call) {
  return {
    /** Create a key; the answer's `key` is the only time it is shown. */
    create: (body: RequestBody<'createApiKey'>, options?: RequestOptions) => call('createApiKey', { body, ...options }),
    /** Every key, without secrets (one page). */
    list: (options?: RequestOptions) => singlePage(() => call('listApiKeys', { ...options })),
    /** Revoke a key; it is refused from the next request on. */
    revoke: (keyId: string, options?: RequestOptions) => call('revokeApiKey', { path: { key_id: keyId }, ...options }),
  };
}
