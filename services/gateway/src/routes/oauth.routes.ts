import { oauthAppsCreate, oauthAppsList, oauthComplete, oauthStart } from '@svc/contracts';
import { isAppError } from '@svc/errors';
import type { OAuthHandoffs } from '../domain/oauth-handoffs.ts';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';
import { clearFlowCookies, flowCookieHeader, flowCookies } from './oauth-browser-cookie.ts';

function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

export interface OAuthRouteOptions {
  /** Where the callback sends the browser (with ?account_id= or ?error=); unset: it answers JSON. */
  successRedirect: string | undefined;
  /** Mark the flow cookie Secure (the API is served over https). */
  secureCookies: boolean;
  /** Makes the hand-off link of each started flow (domain/oauth-handoffs.ts). */
  handoffs: Pick<OAuthHandoffs, 'create'>;
}

/**
 * OAuth connect. `start` (dashboard JWT) sets an HttpOnly cookie binding the flow to that browser,
 * and answers a single-use hand-off link that gives the cookie to another browser
 * (oauth-handoff.routes.ts); the callback has no credential (its state is signed) but connects only
 * for a browser holding the cookie. It redirects to OAUTH_SUCCESS_REDIRECT when one is configured,
 * else answers JSON. docs/security.md.
 */
export function oauthRoutes(rpc: RpcCaller, options: OAuthRouteOptions): Route[] {
  const { successRedirect, secureCookies, handoffs } = options;
  return [
    defineRoute(operations.startOAuth, async ({ params, query, principal, requestId }) => {
      const payload = {
        provider: params.provider,
        ...(query.oauth_app_id === undefined ? {} : { oauth_app_id: query.oauth_app_id }),
        ...(query.author_type === undefined ? {} : { author_type: query.author_type }),
      };
      const started = await rpc(oauthStart, payload, { orgId: principal.orgId, requestId });
      const handoff = await handoffs.create({
        orgId: principal.orgId,
        orgName: principal.kind === 'jwt' ? principal.orgName : undefined,
        provider: params.provider,
        authorizeUrl: started.authorize_url,
        flowCookie: started.browser_cookie,
      });
      return {
        status: 200,
        body: {
          authorize_url: started.authorize_url,
          ...(handoff === undefined
            ? {}
            : { handoff_url: handoff.url, handoff_expires_at: handoff.expiresAt.toISOString() }),
        },
        ...(started.browser_cookie === undefined
          ? {}
          : { headers: { 'Set-Cookie': flowCookieHeader(started.browser_cookie, params.provider, secureCookies) } }),
      };
    }),

    defineRoute(operations.oauthCallback, async ({ params, query, requestId, headers }) => {
      const cookies = flowCookies(headers.cookie);
      const payload = {
        provider: params.provider,
        ...(query.code === undefined ? {} : { code: query.code }),
        ...(query.state === undefined ? {} : { state: query.state }),
        ...(query.error === undefined ? {} : { error: query.error }),
        ...(query.error_description === undefined ? {} : { error_description: query.error_description }),
        browser_cookies: cookies,
      };
      const cleared = clearFlowCookies(Object.keys(cookies), params.provider, secureCookies);
      const cookieHeaders = cleared.length === 0 ? {} : { headers: { 'Set-Cookie': cleared } };
      try {
        const result = await rpc(oauthComplete, payload, { orgId: null, requestId });
        if (successRedirect === undefined) return { status: 200, body: result, ...cookieHeaders };
        const target: Record<string, string> = { account_id: result.account_id, provider: result.provider };
        if (result.account_ids !== undefined && result.account_ids.length > 1)
          target.account_ids = result.account_ids.join(',');
        return { redirect: withQuery(successRedirect, target), ...cookieHeaders };
      } catch (error) {
        if (successRedirect === undefined || !isAppError(error)) throw error;
        return {
          redirect: withQuery(successRedirect, {
            error: error.code,
            error_description: error.message,
            request_id: requestId,
          }),
          ...cookieHeaders,
        };
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
