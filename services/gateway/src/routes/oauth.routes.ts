import { oauthAppsCreate, oauthAppsList, oauthComplete, oauthStart } from '@svc/contracts';
import { isAppError } from '@svc/errors';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * OAuth connect. The callback has no credential (its state is signed and checked by the accounts
 * service); it redirects to OAUTH_SUCCESS_REDIRECT when one is configured, else answers JSON.
 */
export function oauthRoutes(rpc: RpcCaller, successRedirect: string | undefined): Route[] {
  return [
    defineRoute(operations.startOAuth, async ({ params, query, principal, requestId }) => ({
      status: 200,
      body: await rpc(oauthStart, { provider: params.provider, ...(query.oauth_app_id === undefined ? {} : { oauth_app_id: query.oauth_app_id }) }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.oauthCallback, async ({ params, query, requestId }) => {
      const payload = {
        provider: params.provider,
        ...(query.code === undefined ? {} : { code: query.code }),
        ...(query.state === undefined ? {} : { state: query.state }),
        ...(query.error === undefined ? {} : { error: query.error }),
        ...(query.error_description === undefined ? {} : { error_description: query.error_description }),
      };
      try {
        const result = await rpc(oauthComplete, payload, { orgId: null, requestId });
        if (successRedirect === undefined) return { status: 200, body: result };
        return { redirect: withQuery(successRedirect, { account_id: result.account_id, provider: result.provider }) };
      } catch (error) {
        if (successRedirect === undefined || !isAppError(error)) throw error;
        return { redirect: withQuery(successRedirect, { error: error.code, error_description: error.message, request_id: requestId }) };
      }
    }),

    defineRoute(operations.listOAuthApps, async ({ query, principal, requestId }) => ({
      status: 200,
      body: (await rpc(oauthAppsList, query, { orgId: principal.orgId, requestId })).items,
    })),

    defineRoute(operations.createOAuthApp, async ({ body, principal, requestId }) => ({
      status: 201,
      body: await rpc(oauthAppsCreate, body, { orgId: principal.orgId, requestId }),
    })),
  ];
}
