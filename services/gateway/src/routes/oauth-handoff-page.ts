import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { networkLabels, type Network } from '@svc/providers';
import type { RouteResult } from '../http/route.ts';

// The pages of an OAuth hand-off link: small, server-rendered, every value escaped, no script at all,
// and a CSP that allows only this one stylesheet (by hash) and the form's own targets.

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1a1d21}' +
  'main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #d0d5dd;border-radius:8px}' +
  'h1{font-size:1.5rem;margin-top:0}.note{color:#475467}code{font-size:.95em}' +
  'button{font:inherit;padding:.6rem 1.2rem;background:#1849a9;color:#fff;border:0;border-radius:6px;cursor:pointer}' +
  'button:focus-visible,a:focus-visible{outline:3px solid #b54708;outline-offset:2px}a{color:#1849a9}';
export const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/** `2026-12-01 14:03 UTC`: one unambiguous form whatever the reader's time zone. */
const utc = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const timeElement = (at: Date) => `<time datetime="${at.toISOString()}">${utc(at)}</time>`;
const article = (label: string) => (/^[AEIOUX]/.test(label) ? 'an' : 'a');

export function documentOf(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    body,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A page and the CSP that goes with it. */
export interface HandoffPage {
  status: number;
  html: string;
  csp: string;
}

const csp = (formAction: string) =>
  `default-src 'none'; style-src ${STYLE_SOURCE}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;

export interface ConfirmationInput {
  provider: Network;
  orgId: string;
  orgName?: string | undefined;
  createdAt: Date;
  expiresAt: Date;
  /** The anti-forgery value the form posts back. */
  confirm: string;
  /** The form's target, relative to the page (the link's own code). */
  action: string;
  /** Where the confirmed POST redirects: the CSP lets the form's redirect go there. */
  authorizeUrl: string;
  /**
   * Where the callback then sends the browser (OAUTH_SUCCESS_REDIRECT), when configured. A network
   * that consents at once (one the user already authorized, or the sandbox) redirects straight back
   * to the callback, which redirects on: all one navigation from the form, and Chromium holds every
   * hop of a form's redirects to `form-action`, so this origin is allowed too.
   */
  returnUrl?: string | undefined;
}

/** The origins the form's navigation may reach: this page's, the network's, and where the callback returns. */
function formTargets(authorizeUrl: string, returnUrl: string | undefined): string {
  const origins = new Set([new URL(authorizeUrl).origin]);
  if (returnUrl !== undefined) origins.add(new URL(returnUrl).origin);
  return ["'self'", ...origins].join(' ');
}

/** "Connect a <Network> account to organization <org>", and a Continue button that posts the form. */
export function confirmationPage(input: ConfirmationInput): HandoffPage {
  const network = networkLabels[input.provider];
  const what = `${article(network)} ${network} account`;
  const organization =
    input.orgName === undefined
      ? `<strong>${escapeHtml(input.orgId)}</strong>`
      : `<strong>${escapeHtml(input.orgName)}</strong> (<code>${escapeHtml(input.orgId)}</code>)`;
  const body = [
    `<h1>Connect ${what}</h1>`,
    `<p>Connect ${what} to organization ${organization}.</p>`,
    `<p>This link was created at ${timeElement(input.createdAt)} and works once, until ${timeElement(input.expiresAt)}.</p>`,
    `<p class="note">Continue only if you asked for this link yourself: the ${escapeHtml(network)} account you`,
    'connect will be used by this organization. If someone sent you this link, close this page.</p>',
    `<form method="post" action="${escapeHtml(input.action)}">`,
    `<input type="hidden" name="confirm" value="${escapeHtml(input.confirm)}">`,
    `<button type="submit">Continue to ${escapeHtml(network)}</button>`,
    '</form>',
  ].join('\n');
  return {
    status: 200,
    html: documentOf(`Connect ${what}`, body),
    csp: csp(formTargets(input.authorizeUrl, input.returnUrl)),
  };
}

export type HandoffRefusal = 'used' | 'expired' | 'unknown' | 'unconfirmed';

const REFUSALS: Record<HandoffRefusal, { status: number; title: string; text: string }> = {
  used: {
    status: 410,
    title: 'This link has already been used',
    text: 'A connection link works once. Start the connection again (in the dashboard, or with svc accounts connect) for a new link.',
  },
  expired: {
    status: 410,
    title: 'This link has expired',
    text: 'A connection link works for a few minutes only. Start the connection again (in the dashboard, or with svc accounts connect) for a new link.',
  },
  unknown: {
    status: 404,
    title: 'This link is not valid',
    text: 'Check that you opened the whole link, or start the connection again for a new one.',
  },
  unconfirmed: {
    status: 403,
    title: 'Confirm on the connection page',
    text: 'This request did not come from the page of this link in this browser, so nothing was done.',
  },
};

/**
 * Why a link cannot be used. `retry`: the link's own code, for a request that did not come from its
 * page (the page is offered again; it says whether the link still works).
 */
export function refusalPage(refusal: HandoffRefusal, retry?: string): HandoffPage {
  const { status, title, text } = REFUSALS[refusal];
  const again = retry === undefined ? '' : `\n<p><a href="${escapeHtml(retry)}">Open the link again</a></p>`;
  return {
    status,
    html: documentOf(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>${again}`),
    csp: csp("'none'"),
  };
}

/** The headers every hand-off page carries: never cached, never framed, never sent on as a referrer. */
export function pageResult(page: HandoffPage, headers: Record<string, string> = {}): RouteResult {
  const bytes = Buffer.from(page.html, 'utf8');
  return {
    status: page.status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(bytes.length),
      'Content-Security-Policy': page.csp,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    },
    stream: Readable.from([bytes]),
  };
}
