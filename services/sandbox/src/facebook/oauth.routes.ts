import { type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { derivedId, randomToken } from '../state/ids.ts';
import {
  callerOf,
  graphParams,
  pageIdOf,
  pagesManagedBy,
  igUserIdOf,
  requireGraphToken,
  userIdOf,
} from './graph-auth.ts';
import { graphError, renderGraphFault, tokenError } from './graph-errors.ts';

const SHORT_LIVED_SECONDS = 5400;
const LONG_LIVED_SECONDS = 5_183_944;
const SHARED = ['facebook', 'instagram'] as const;

/** Facebook Login (docs/networks.md §2.1), also used by Instagram with Facebook Login (§1.1). */
export function registerGraphOAuth(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(SHARED, renderGraphFault);

  // www.facebook.com/{v}/dialog/oauth, folded in: consent is automatic.
  router.get('/dialog/oauth', (req, res) => {
    const params = graphParams(req);
    const redirectUri = params.redirect_uri;
    if (!params.client_id || !redirectUri) {
      return graphError(res, 400, { message: 'Invalid App ID: client_id and redirect_uri are required.', code: 100 });
    }
    const code = randomToken('AQ', 48);
    const user = params.sandbox_user ?? derivedId(`facebook:${params.client_id}`, 15, '1');
    state.tokens.saveCode(code, {
      family: 'facebook',
      clientId: params.client_id,
      redirectUri,
      scopes: (params.scope ?? '').split(/[,\s]+/).filter(Boolean),
      subject: `fbuser:${user}`,
      codeChallenge: undefined,
      codeChallengeMethod: undefined,
      expiresAt: state.now() + 600_000,
      used: false,
    });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(302, `${target.toString()}#_=_`);
  });

  router.get('/oauth/access_token', gate, (req, res) => {
    const params = graphParams(req);
    if (!params.client_id || !params.client_secret) {
      return graphError(res, 400, { message: 'Missing client_id or client_secret parameter.', code: 101 });
    }
    if (params.grant_type === 'fb_exchange_token') {
      const check = state.tokens.check('facebook', params.fb_exchange_token);
      if (check.status !== 'ok') return tokenError(res, check.status);
      const issued = state.tokens.issue({
        family: 'facebook',
        subject: check.subject,
        root: check.record?.root ?? check.subject,
        clientId: params.client_id,
        scopes: check.record?.scopes ?? [],
        accessPrefix: 'EAAB',
        accessTtlSeconds: LONG_LIVED_SECONDS,
      });
      return void res.json({ access_token: issued.accessToken, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS });
    }
    const code = params.code ? state.tokens.getCode(params.code) : undefined;
    if (!code || code.family !== 'facebook' || code.clientId !== params.client_id) {
      return graphError(res, 400, { message: 'Invalid verification code format.', code: 100, error_subcode: 36007 });
    }
    if (code.used)
      return graphError(res, 400, {
        message: 'This authorization code has been used.',
        code: 100,
        error_subcode: 36009,
      });
    if (code.expiresAt <= state.now())
      return graphError(res, 400, { message: 'This authorization code has expired.', code: 100, error_subcode: 36007 });
    if (code.redirectUri !== params.redirect_uri) {
      return graphError(res, 400, {
        message:
          'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        code: 100,
        error_subcode: 36008,
      });
    }
    code.used = true;
    const issued = state.tokens.issue({
      family: 'facebook',
      subject: code.subject,
      clientId: code.clientId,
      scopes: code.scopes,
      accessPrefix: 'EAAB',
      accessTtlSeconds: SHORT_LIVED_SECONDS,
    });
    res.json({ access_token: issued.accessToken, token_type: 'bearer', expires_in: SHORT_LIVED_SECONDS });
  });

  const auth = requireGraphToken(ctx);

  router.get('/me', gate, auth, (req, res) => {
    const caller = callerOf(res);
    if (caller.pageId) return void res.json({ id: caller.pageId, name: `Sandbox Page ${caller.pageId.slice(-4)}` });
    const id = userIdOf(caller.subject);
    res.json({ id, name: `Sandbox User ${id.slice(-4)}` });
  });

  router.get('/me/permissions', gate, auth, (_req, res) => {
    const record = state.tokens.get(callerOf(res).token);
    const scopes = record?.scopes.length
      ? record.scopes
      : [
          'pages_show_list',
          'pages_manage_posts',
          'pages_read_engagement',
          'read_insights',
          'instagram_basic',
          'instagram_content_publish',
          'instagram_manage_insights',
        ];
    res.json({ data: scopes.map((permission) => ({ permission, status: 'granted' })) });
  });

  // Page tokens derived from a (long-lived) user token never expire (docs/networks.md §2.1 step 4).
  // Cursor-paged like Graph (25 a page by default, `limit` up to 100, `after` cursor; `next` only when more follow).
  router.get('/me/accounts', gate, auth, (req, res) => {
    const caller = callerOf(res);
    const params = graphParams(req);
    const all = pagesManagedBy(caller.subject, caller.token);
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 25) || 25));
    const start = params.after === undefined ? 0 : Number(Buffer.from(params.after, 'base64url').toString()) || 0;
    const slice = all.slice(start, start + limit);
    const linked = pageIdOf(caller.subject);
    const igId = igUserIdOf(caller.subject);
    const data = slice.map((pageId) => ({
      id: pageId,
      name: `Sandbox Page ${pageId.slice(-4)}`,
      category: 'Brand',
      access_token: state.tokens.issue({
        family: 'facebook',
        subject: `page:${pageId}`,
        root: state.tokens.get(caller.token)?.root ?? caller.subject,
        clientId: state.tokens.get(caller.token)?.clientId ?? 'byok',
        scopes: [],
        accessPrefix: 'EAAP',
        accessTtlSeconds: undefined,
      }).accessToken,
      tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
      ...(pageId === linked
        ? { instagram_business_account: { id: igId, username: `sandbox_ig_${igId.slice(-6)}` } }
        : {}),
    }));
    const cursor = (offset: number) => Buffer.from(String(offset)).toString('base64url');
    const more = start + limit < all.length;
    res.json({
      data,
      paging: {
        cursors: { before: cursor(start), after: cursor(start + slice.length) },
        ...(more
          ? {
              next: `https://graph.facebook.com/v25.0/me/accounts?limit=${limit}&after=${cursor(start + slice.length)}`,
            }
          : {}),
      },
    });
  });

  router.delete('/:id/permissions', gate, auth, (_req, res) => {
    const caller = callerOf(res);
    state.tokens.revokeRoot(state.tokens.get(caller.token)?.root ?? caller.subject);
    res.json({ success: true });
  });
}
