// Connected accounts, their OAuth connection and the organization's own OAuth apps.
import type { RequestOptions, Call } from '../call.ts';
import type { PathParams, QueryParams, RequestBody, ResponseData } from '../contract.ts';
import { cursorPaginated, singlePage } from '../pagination.ts';

export function accountsResource(call: Call) {
  return {
    /** Connected accounts: `for await` over every account, or `.page()` for one page. */
    list: (query: QueryParams<'listAccounts'> = {}, options?: RequestOptions) =>
      cursorPaginated<
        ResponseData<'listAccounts'>['items'][number],
        ResponseData<'listAccounts'>,
        QueryParams<'listAccounts'>
      >(query, (page) => call('listAccounts', { query: page, ...options })),
    /** Connect an account with your own token (BYOK); the token is checked with the network first. */
    create: (body: RequestBody<'createAccount'>, options?: RequestOptions) =>
      call('createAccount', { body, ...options }),
    /** Force a token refresh. */
    refresh: (accountId: string, options?: RequestOptions) =>
      call('refreshAccount', { path: { account_id: accountId }, ...options }),
    /** Disconnect an account. */
    remove: (accountId: string, options?: RequestOptions) =>
      call('deleteAccount', { path: { account_id: accountId }, ...options }),
    /** The network's authorize URL to send a user to (dashboard JWT only). */
    oauthStart: (
      provider: PathParams<'startOAuth'>['provider'],
      query: QueryParams<'startOAuth'> = {},
      options?: RequestOptions,
    ) => call('startOAuth', { path: { provider }, query, ...options }),
  };
}

export function oauthAppsResource(call: Call) {
  return {
    /** Your own OAuth apps (dashboard JWT only). */
    list: (query: QueryParams<'listOAuthApps'> = {}, options?: RequestOptions) =>
      singlePage(() => call('listOAuthApps', { query, ...options })),
    /** Register an OAuth app; its secret is stored encrypted and never returned. */
    create: (body: RequestBody<'createOAuthApp'>, options?: RequestOptions) =>
      call('createOAuthApp', { body, ...options }),
  };
}
