import { newConfirmNonce, confirmValue } from '../domain/oauth-handoff-code.ts';
import type { OAuthHandoffs } from '../domain/oauth-handoffs.ts';
import { defineRoute, type Route } from '../http/route.ts';
import { operations } from '../openapi/operations.ts';
import { clearHandoffCookie, flowCookieHeader, handoffCookieHeader, handoffNonce } from './oauth-browser-cookie.ts';
import { confirmationPage, pageResult, refusalPage } from './oauth-handoff-page.ts';

/** Whole seconds until `iso`, at least 1 (a cookie's Max-Age). */
const secondsUntil = (iso: string) => Math.max(1, Math.ceil((new Date(iso).getTime() - Date.now()) / 1000));

/**
 * A browser's own fetch metadata (Fetch Metadata, sent by every current browser): a POST started by
 * another site's page is refused before anything else is looked at. The SameSite=Strict nonce
 * cookie refuses it too; this says so plainly.
 */
function fromAnotherSite(headers: Record<string, string | string[] | undefined>): boolean {
  const site = headers['sec-fetch-site'];
  return typeof site === 'string' && site !== 'same-origin' && site !== 'none';
}

/**
 * The hand-off link of an OAuth connect, opened in a browser. GET shows a confirmation page (and
 * changes nothing, so link previews and scanners cannot use it); its form's POST uses the link once,
 * gives this browser the flow's cookie exactly as `start` would have, and redirects (303) to the
 * network's consent, whose callback then completes as usual. Answers are HTML pages for people.
 */
export function oauthHandoffRoutes(
  handoffs: OAuthHandoffs,
  options: {
    secureCookies: boolean;
    /** OAUTH_SUCCESS_REDIRECT: the confirmation page's CSP lets the flow's last redirect go there. */
    successRedirect?: string | undefined;
  },
): Route[] {
  const secure = options.secureCookies;
  return [
    defineRoute(operations.openOAuthHandoff, async ({ params, headers }) => {
      const found = await handoffs.view(params.code);
      if (found.status !== 'open') return pageResult(refusalPage(found.status));
      const { record } = found;
      const nonce = handoffNonce(headers.cookie) ?? newConfirmNonce();
      const page = confirmationPage({
        provider: record.provider,
        orgId: record.org_id,
        orgName: record.org_name,
        createdAt: new Date(record.created_at),
        expiresAt: new Date(record.expires_at),
        confirm: confirmValue(params.code, nonce),
        action: params.code,
        authorizeUrl: record.authorize_url,
        returnUrl: options.successRedirect,
      });
      return pageResult(page, {
        'Set-Cookie': handoffCookieHeader(nonce, params.code, secondsUntil(record.expires_at), secure),
      });
    }),

    defineRoute(operations.confirmOAuthHandoff, async ({ params, headers, rawBody }) => {
      if (fromAnotherSite(headers)) return pageResult(refusalPage('unconfirmed', params.code));
      const form = new URLSearchParams(rawBody?.toString('utf8') ?? '');
      const found = await handoffs.take(params.code, {
        nonce: handoffNonce(headers.cookie),
        value: form.get('confirm') ?? undefined,
      });
      if (found.status === 'unconfirmed') return pageResult(refusalPage('unconfirmed', params.code));
      if (found.status !== 'open') return pageResult(refusalPage(found.status));
      const { record } = found;
      const cookies = [clearHandoffCookie(params.code, secure)];
      if (record.flow_cookie !== undefined)
        cookies.push(
          flowCookieHeader(
            { ...record.flow_cookie, max_age_seconds: secondsUntil(record.flow_expires_at) },
            record.provider,
            secure,
          ),
        );
      return {
        status: 303,
        body: undefined,
        headers: {
          Location: record.authorize_url,
          'Set-Cookie': cookies,
          'Cache-Control': 'no-store',
          // The page's address holds the code: the network is not told it.
          'Referrer-Policy': 'no-referrer',
        },
      };
    }),
  ];
}
