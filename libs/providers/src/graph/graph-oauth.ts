import { ProviderError } from '../errors/provider-error.ts';
import { type Network, type OAuthCapability, type TokenSet } from '../types.ts';
import { type GraphApi } from './graph-api.ts';

interface GraphToken {
  access_token: string;
  token_type?: string;
  expires_in?: number;
}

export interface GraphOAuthOptions {
  network: Network;
  api: GraphApi;
  /** www.facebook.com (or the sandbox's `/facebook`); the dialog is `/{version}/dialog/oauth`. */
  authBaseUrl: string;
  now: () => number;
}

/**
 * Facebook Login, for Facebook Pages and Instagram with Facebook Login (docs/networks.md §2.1): code ->
 * short-lived user token -> long-lived (~60 d) user token. There is no refresh token; `refresh`
 * re-exchanges a still valid long-lived token for a fresh one (pass it as `refreshToken`).
 */
export function createGraphOAuth(options: GraphOAuthOptions): OAuthCapability {
  const { api, now } = options;
  const toTokenSet = (token: GraphToken, scopes: string[]): TokenSet => ({
    accessToken: token.access_token,
    ...(token.expires_in ? { expiresAt: new Date(now() + token.expires_in * 1000) } : {}),
    scopes,
  });
  const longLived = (app: { clientId: string; clientSecret: string }, token: string) =>
    api.getPublic<GraphToken>('/oauth/access_token', {
      grant_type: 'fb_exchange_token',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      fb_exchange_token: token,
    });

  return {
    pkce: 'none',
    authorizeUrl({ app, state }) {
      const url = new URL(`${options.authBaseUrl.replace(/\/$/, '')}/${api.version}/dialog/oauth`);
      url.searchParams.set('client_id', app.clientId);
      url.searchParams.set('redirect_uri', app.redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('scope', app.scopes.join(','));
      url.searchParams.set('response_type', 'code');
      return { url: url.toString(), pkce: 'none' };
    },
    async exchangeCode({ app, code }) {
      const short = await api.getPublic<GraphToken>('/oauth/access_token', {
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: app.redirectUri,
        code,
      });
      return toTokenSet(await longLived(app, short.access_token), app.scopes);
    },
    async refresh({ app, refreshToken }) {
      if (!refreshToken) {
        throw new ProviderError({
          network: options.network,
          kind: 'validation',
          networkMessage: 'Facebook Login has no refresh token; reconnect the account.',
        });
      }
      return toTokenSet(await longLived(app, refreshToken), app.scopes);
    },
    async revoke({ token }) {
      await api.delete('/me/permissions', token);
    },
  };
}
