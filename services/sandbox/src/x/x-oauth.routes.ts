import { createHash } from 'node:crypto';
import { urlencoded, type Request, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { derivedId, hashOf, randomToken } from '../state/ids.ts';
import { type TokenRecord } from '../state/types.ts';
import { oauthError, xFaultRenderer } from './x-errors.ts';

const ACCESS_TTL = 7200;
const REFRESH_TTL = 15_552_000;
const CODE_TTL_MS = 30_000;

/** Client id from HTTP Basic (confidential clients) or the body (public clients). */
function clientOf(req: Request): string | undefined {
  const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic) return Buffer.from(basic, 'base64').toString('utf8').split(':')[0];
  const body = (req.body ?? {}) as Record<string, string | undefined>;
  return body.client_id;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** X OAuth 2.0 with PKCE (docs/networks.md §3.1): 30 s codes, 2 h tokens, single-use rotating refresh tokens. */
export function registerXOAuth(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['x'], xFaultRenderer());
  const form = urlencoded({ extended: false });

  const issue = (subject: string, root: string, clientId: string, scopes: string[]) => {
    const offline = scopes.includes('offline.access');
    const pair = state.tokens.issue({
      family: 'x',
      subject,
      root,
      clientId,
      scopes,
      accessPrefix: '',
      accessTtlSeconds: ACCESS_TTL,
      ...(offline ? { refreshPrefix: '', refreshTtlSeconds: REFRESH_TTL } : {}),
    });
    return {
      token_type: 'bearer',
      expires_in: ACCESS_TTL,
      access_token: pair.accessToken,
      scope: scopes.join(' '),
      ...(pair.refreshToken ? { refresh_token: pair.refreshToken } : {}),
    };
  };

  // x.com/i/oauth2/authorize, folded in: consent is automatic.
  router.get('/i/oauth2/authorize', (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    if (q.response_type !== 'code' || !q.client_id || !q.redirect_uri || !q.state || !q.code_challenge) {
      return oauthError(
        res,
        400,
        'invalid_request',
        'Missing required parameter: response_type=code, client_id, redirect_uri, state and code_challenge are required.',
      );
    }
    const method = q.code_challenge_method ?? 'plain';
    if (method !== 'S256' && method !== 'plain')
      return oauthError(res, 400, 'invalid_request', 'Unsupported code_challenge_method.');
    const code = randomToken('', 40);
    state.tokens.saveCode(code, {
      family: 'x',
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      scopes: (q.scope ?? '').split(/\s+/).filter(Boolean),
      subject: `xuser:${q.sandbox_user ?? derivedId(`x:${q.client_id}`, 19, '1')}`,
      codeChallenge: q.code_challenge,
      codeChallengeMethod: method,
      expiresAt: state.now() + CODE_TTL_MS,
      used: false,
    });
    const target = new URL(q.redirect_uri);
    target.searchParams.set('state', q.state);
    target.searchParams.set('code', code);
    res.redirect(302, target.toString());
  });

  router.post('/2/oauth2/token', form, gate, (req, res) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    const clientId = clientOf(req);
    if (!clientId) return oauthError(res, 401, 'unauthorized_client', 'Missing valid authorization header');
    if (body.grant_type === 'authorization_code') {
      const code = body.code ? state.tokens.getCode(body.code) : undefined;
      const verifierOk =
        code?.codeChallenge !== undefined &&
        body.code_verifier !== undefined &&
        (code.codeChallengeMethod === 'S256'
          ? s256(body.code_verifier) === code.codeChallenge
          : body.code_verifier === code.codeChallenge);
      if (
        !code ||
        code.family !== 'x' ||
        code.used ||
        code.expiresAt <= state.now() ||
        code.clientId !== clientId ||
        code.redirectUri !== body.redirect_uri ||
        !verifierOk
      ) {
        return oauthError(res, 400, 'invalid_request', 'Value passed for the authorization code was invalid.');
      }
      code.used = true;
      return void res.json(issue(code.subject, `${code.subject}:${randomToken('', 6)}`, clientId, code.scopes));
    }
    if (body.grant_type === 'refresh_token') {
      const presented = body.refresh_token ?? '';
      if (!presented || presented.startsWith('invalid_'))
        return oauthError(res, 400, 'invalid_request', 'Value passed for the token was invalid.');
      const record: TokenRecord | undefined = state.tokens.get(presented);
      if (!record) {
        // BYOK refresh token: accepted once, as a stable subject.
        const subject = `byok:x:${hashOf(presented)}`;
        return void res.json(
          issue(`xuser:${derivedId(subject, 19, '1')}`, subject, clientId, [
            'tweet.read',
            'tweet.write',
            'users.read',
            'media.write',
            'offline.access',
          ]),
        );
      }
      if (
        record.family !== 'x' ||
        record.kind !== 'refresh' ||
        record.revoked ||
        (record.expiresAt !== undefined && record.expiresAt <= state.now())
      ) {
        return oauthError(res, 400, 'invalid_request', 'Value passed for the token was invalid.');
      }
      if (record.used) {
        // Replaying a rotated refresh token invalidates the whole grant.
        state.tokens.revokeRoot(record.root);
        return oauthError(res, 400, 'invalid_request', 'Value passed for the token was invalid.');
      }
      record.used = true;
      return void res.json(issue(record.subject, record.root, clientId, record.scopes));
    }
    oauthError(res, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  });

  router.post('/2/oauth2/revoke', form, gate, (req, res) => {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    if (!clientOf(req)) return oauthError(res, 401, 'unauthorized_client', 'Missing valid authorization header');
    const record = body.token ? state.tokens.get(body.token) : undefined;
    if (record) state.tokens.revokeRoot(record.root);
    res.json({ revoked: true });
  });
}
