import { createHash, randomUUID } from 'node:crypto';
import { urlencoded, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { randomToken } from '../state/ids.ts';
import { type TokenRecord } from '../state/types.ts';
import { oauthError, tiktokFaultRenderer } from './tt-errors.ts';

/** docs/networks.md §5.1 [CONFLICT]: the Nov-2026 docs say 2 h access, 180 d refresh, rotated on refresh. */
const ACCESS_TTL = 7200;
const REFRESH_TTL = 15_552_000;

/** TikTok desktop PKCE uses a hex SHA-256; web clients may send base64url or plain (docs/networks.md §5.1). */
/**
 * TikTok's PKCE (developers.tiktok.com/doc/login-kit-desktop, "code_challenge"): the challenge is the
 * SHA-256 of the verifier as lowercase hex, not RFC 7636's base64url; a base64url challenge is
 * refused at the exchange with "Code verifier or code challenge is invalid." (StackOverflow 78856419).
 */
function verifierMatches(verifier: string, challenge: string, method: string | undefined): boolean {
  if (method !== 'S256') return verifier === challenge;
  return challenge === createHash('sha256').update(verifier).digest('hex');
}

export function registerTikTokOAuth(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['tiktok'], tiktokFaultRenderer());
  const form = urlencoded({ extended: false });

  const issue = (subject: string, root: string, clientId: string, scopes: string[]) => {
    const pair = state.tokens.issue({
      family: 'tiktok',
      subject,
      root,
      clientId,
      scopes,
      accessPrefix: 'act.',
      accessTtlSeconds: ACCESS_TTL,
      refreshPrefix: 'rft.',
      refreshTtlSeconds: REFRESH_TTL,
    });
    return {
      access_token: pair.accessToken,
      expires_in: ACCESS_TTL,
      open_id: subject.slice(7),
      refresh_expires_in: REFRESH_TTL,
      refresh_token: pair.refreshToken,
      scope: scopes.join(','),
      token_type: 'Bearer',
    };
  };

  // www.tiktok.com/v2/auth/authorize/, folded in: consent is automatic.
  router.get('/v2/auth/authorize/', (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    if (q.response_type !== 'code' || !q.client_key || !q.redirect_uri || !q.scope) {
      return oauthError(
        res,
        400,
        'invalid_request',
        'client_key, scope, response_type=code and redirect_uri are required.',
      );
    }
    const code = randomToken('', 40);
    state.tokens.saveCode(code, {
      family: 'tiktok',
      clientId: q.client_key,
      redirectUri: q.redirect_uri,
      scopes: q.scope.split(',').filter(Boolean),
      subject: `ttuser:${q.sandbox_user ?? `-000${createHash('sha256').update(`tiktok:${q.client_key}`).digest('hex').slice(0, 16)}`}`,
      codeChallenge: q.code_challenge,
      codeChallengeMethod: q.code_challenge_method,
      expiresAt: state.now() + 10 * 60_000,
      used: false,
    });
    const target = new URL(q.redirect_uri);
    target.searchParams.set('code', code);
    target.searchParams.set('scopes', q.scope);
    if (q.state !== undefined) target.searchParams.set('state', q.state);
    res.redirect(302, target.toString());
  });

  router.post('/v2/oauth/token/', form, gate, (req, res) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    if (!body.client_key || !body.client_secret)
      return oauthError(res, 401, 'invalid_client', 'Client key or secret is invalid.');
    if (body.grant_type === 'authorization_code') {
      const code = body.code ? state.tokens.getCode(body.code) : undefined;
      if (
        !code ||
        code.family !== 'tiktok' ||
        code.used ||
        code.expiresAt <= state.now() ||
        code.clientId !== body.client_key
      ) {
        return oauthError(res, 400, 'invalid_grant', 'Authorization code is expired or invalid.');
      }
      if (
        code.codeChallenge !== undefined &&
        (body.code_verifier === undefined ||
          !verifierMatches(body.code_verifier, code.codeChallenge, code.codeChallengeMethod))
      ) {
        return oauthError(res, 400, 'invalid_request', 'Code verifier or code challenge is invalid.');
      }
      if (code.redirectUri !== body.redirect_uri)
        return oauthError(res, 400, 'invalid_request', 'redirect_uri does not match the authorization request.');
      code.used = true;
      return void res.json(issue(code.subject, `${code.subject}:${randomUUID()}`, code.clientId, code.scopes));
    }
    if (body.grant_type === 'refresh_token') {
      const record: TokenRecord | undefined = body.refresh_token ? state.tokens.get(body.refresh_token) : undefined;
      if (
        !record ||
        record.family !== 'tiktok' ||
        record.kind !== 'refresh' ||
        record.revoked ||
        record.used ||
        (record.expiresAt ?? 0) <= state.now()
      ) {
        return oauthError(res, 400, 'invalid_grant', 'Refresh token is invalid or expired.');
      }
      // Rotation: the previous refresh token stops working.
      record.used = true;
      return void res.json(issue(record.subject, record.root, record.clientId, record.scopes));
    }
    oauthError(res, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  });

  router.post('/v2/oauth/revoke/', form, gate, (req, res) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    if (!body.client_key || !body.client_secret)
      return oauthError(res, 401, 'invalid_client', 'Client key or secret is invalid.');
    const record = body.token ? state.tokens.get(body.token) : undefined;
    if (record) state.tokens.revokeRoot(record.root);
    res.json({});
  });
}
