import { urlencoded, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { hashOf, randomToken } from '../state/ids.ts';
import { oauthError, renderLinkedInFault } from './li-errors.ts';

const ACCESS_TTL = 5_184_000;
const REFRESH_TTL = 31_536_000;

const fakeJwt = (claims: object) =>
  [
    Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url'),
    Buffer.from(JSON.stringify(claims)).toString('base64url'),
    'sandbox-signature',
  ].join('.');

/**
 * Scopes of the vetted Community Management API (learn.microsoft.com linkedin/marketing/
 * community-management): only apps granted that product may ask for them. In the sandbox those are
 * the apps whose client id starts with `cma-`; every app has "Share on LinkedIn" and OpenID Connect.
 */
const VETTED_SCOPES = new Set([
  'r_member_postAnalytics',
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
  'r_organization_admin',
  'r_member_social',
]);
const VETTED_CLIENT_PREFIX = 'cma-';

/**
 * LinkedIn OAuth 2.0 (docs/networks.md §4.1): 60-day access tokens; a refresh token with a fixed 365-day
 * life counted from the first grant, returned unchanged by every refresh (not rotated).
 */
export function registerLinkedInOAuth(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['linkedin'], renderLinkedInFault);
  const form = urlencoded({ extended: false });

  // www.linkedin.com/oauth/v2/authorization, folded in: consent is automatic.
  router.get('/oauth/v2/authorization', (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    if (q.response_type !== 'code' || !q.client_id || !q.redirect_uri) {
      return oauthError(res, 400, 'invalid_request', 'response_type=code, client_id and redirect_uri are required.');
    }
    const scopes = (q.scope ?? '').split(/[\s,]+/).filter(Boolean);
    const unauthorized = scopes.find(
      (scope) => VETTED_SCOPES.has(scope) && !q.client_id!.startsWith(VETTED_CLIENT_PREFIX),
    );
    if (unauthorized !== undefined) {
      // LinkedIn fails the whole authorization, back at the redirect URI, for a scope of a product the app lacks.
      const refused = new URL(q.redirect_uri);
      refused.searchParams.set('error', 'unauthorized_scope_error');
      refused.searchParams.set('error_description', `Scope "${unauthorized}" is not authorized for your application`);
      if (q.state !== undefined) refused.searchParams.set('state', q.state);
      return res.redirect(302, refused.toString());
    }
    const code = randomToken('AQ', 40);
    state.tokens.saveCode(code, {
      family: 'linkedin',
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      scopes,
      subject: `liuser:${q.sandbox_user ?? `m${hashOf(`linkedin:${q.client_id}`).slice(0, 9)}`}`,
      codeChallenge: undefined,
      codeChallengeMethod: undefined,
      expiresAt: state.now() + 30 * 60_000,
      used: false,
    });
    const target = new URL(q.redirect_uri);
    target.searchParams.set('code', code);
    if (q.state !== undefined) target.searchParams.set('state', q.state);
    res.redirect(302, target.toString());
  });

  router.post('/oauth/v2/accessToken', form, gate, (req, res) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    if (!body.client_id || !body.client_secret)
      return oauthError(res, 401, 'invalid_client', 'Client authentication failed.');
    if (body.grant_type === 'authorization_code') {
      const code = body.code ? state.tokens.getCode(body.code) : undefined;
      if (
        !code ||
        code.family !== 'linkedin' ||
        code.used ||
        code.expiresAt <= state.now() ||
        code.clientId !== body.client_id
      ) {
        return oauthError(res, 400, 'invalid_request', 'Unable to retrieve access token: authorization code not found');
      }
      if (code.redirectUri !== body.redirect_uri)
        return oauthError(
          res,
          400,
          'invalid_redirect_uri',
          'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code.',
        );
      code.used = true;
      const pair = state.tokens.issue({
        family: 'linkedin',
        subject: code.subject,
        root: `${code.subject}:${randomToken('', 6)}`,
        clientId: code.clientId,
        scopes: code.scopes,
        accessPrefix: 'AQV',
        accessTtlSeconds: ACCESS_TTL,
        refreshPrefix: 'AQW',
        refreshTtlSeconds: REFRESH_TTL,
      });
      const sub = code.subject.slice(7);
      return void res.json({
        access_token: pair.accessToken,
        expires_in: ACCESS_TTL,
        refresh_token: pair.refreshToken,
        refresh_token_expires_in: REFRESH_TTL,
        scope: code.scopes.join(','),
        token_type: 'Bearer',
        ...(code.scopes.includes('openid')
          ? {
              id_token: fakeJwt({
                iss: 'https://www.linkedin.com/oauth',
                aud: code.clientId,
                sub,
                iat: Math.floor(state.now() / 1000),
              }),
            }
          : {}),
      });
    }
    if (body.grant_type === 'refresh_token') {
      const record = body.refresh_token ? state.tokens.get(body.refresh_token) : undefined;
      if (
        !record ||
        record.family !== 'linkedin' ||
        record.kind !== 'refresh' ||
        record.revoked ||
        (record.expiresAt ?? 0) <= state.now()
      ) {
        return oauthError(res, 400, 'invalid_grant', 'Token has been expired or revoked.');
      }
      const pair = state.tokens.issue({
        family: 'linkedin',
        subject: record.subject,
        root: record.root,
        clientId: record.clientId,
        scopes: record.scopes,
        accessPrefix: 'AQV',
        accessTtlSeconds: ACCESS_TTL,
      });
      return void res.json({
        access_token: pair.accessToken,
        expires_in: ACCESS_TTL,
        refresh_token: body.refresh_token,
        refresh_token_expires_in: Math.floor(((record.expiresAt ?? 0) - state.now()) / 1000),
        scope: record.scopes.join(','),
        token_type: 'Bearer',
      });
    }
    oauthError(res, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  });

  router.post('/oauth/v2/revoke', form, gate, (req, res) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    if (!body.client_id || !body.client_secret)
      return oauthError(res, 401, 'invalid_client', 'Client authentication failed.');
    const record = body.token ? state.tokens.get(body.token) : undefined;
    if (record) state.tokens.revokeRoot(record.root);
    res.status(200).end();
  });

  router.post('/oauth/v2/introspectToken', form, gate, (req, res) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    const record = body.token ? state.tokens.get(body.token) : undefined;
    if (!record) return void res.json({ active: false });
    const expired = record.expiresAt !== undefined && record.expiresAt <= state.now();
    const status = record.revoked ? 'revoked' : expired ? 'expired' : 'active';
    res.json({
      active: status === 'active',
      client_id: record.clientId,
      authorized_at: Math.floor(record.issuedAt / 1000),
      created_at: Math.floor(record.issuedAt / 1000),
      status,
      expires_at: record.expiresAt === undefined ? undefined : Math.floor(record.expiresAt / 1000),
      scope: record.scopes.join(','),
      auth_type: '3L',
    });
  });
}
