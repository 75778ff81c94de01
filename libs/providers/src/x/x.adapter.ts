import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { assertContent } from '../rules/assert-content.ts';
import { type OAuthApp, type ProviderAdapter, type TokenSet } from '../types.ts';
import { createCall } from '../http/create-call.ts';
import { xComments } from './x.comments.ts';
import { xLookup } from './x.lookup.ts';
import { readyXMedia } from './x.media.ts';
import { xRules } from './x.rules.ts';

export interface XAdapterOptions extends AdapterDeps {
  authorizeUrl: string;
  /** X_TEXT_LIMIT_DEFAULT: the limit of accounts whose profile gives no subscription tier. */
  defaultTextLimit?: number;
}

interface XToken {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

/** Confidential clients authenticate with HTTP Basic; public clients send `client_id` in the body. */
function clientAuth(app: OAuthApp): { headers: Record<string, string>; body: Record<string, string> } {
  return app.clientSecret
    ? {
        headers: { Authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
        body: {},
      }
    : { headers: {}, body: { client_id: app.clientId } };
}

/** X API v2 with OAuth 2.0 + PKCE (docs/networks.md §3). Refresh tokens rotate: always store the new one. */
export function createXAdapter(options: XAdapterOptions): ProviderAdapter {
  const { client, now } = options;

  const tokenCall = async (app: OAuthApp, params: Record<string, string>): Promise<TokenSet> => {
    const auth = clientAuth(app);
    const response = await client.request<XToken>({
      method: 'POST',
      url: '/2/oauth2/token',
      data: new URLSearchParams({ ...params, ...auth.body }).toString(),
      headers: { ...auth.headers, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const token = response.data;
    return {
      accessToken: token.access_token,
      ...(token.refresh_token ? { refreshToken: token.refresh_token } : {}),
      ...(token.expires_in ? { expiresAt: new Date(now() + token.expires_in * 1000) } : {}),
      ...(token.scope ? { scopes: token.scope.split(' ') } : {}),
    };
  };

  const me = async (accessToken: string) =>
    (
      await client.request<{ data: { id: string; username: string; name?: string; subscription_type?: string } }>({
        method: 'GET',
        url: '/2/users/me',
        // subscription_type decides the account's text limit (Premium posts up to 25,000; rules/x-text.ts).
        params: { 'user.fields': 'username,name,profile_image_url,subscription_type' },
        headers: { Authorization: `Bearer ${accessToken}` },
      })
    ).data.data;

  return {
    network: 'x',
    rules: xRules,
    oauth: {
      pkce: 'required',
      authorizeUrl({ app, state, codeChallenge }) {
        if (!codeChallenge)
          throw new ProviderError({
            network: 'x',
            kind: 'validation',
            networkCode: 'pkce_required',
            networkMessage: 'X requires a PKCE code challenge (S256).',
          });
        const url = new URL(options.authorizeUrl);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('client_id', app.clientId);
        url.searchParams.set('redirect_uri', app.redirectUri);
        url.searchParams.set('scope', app.scopes.join(' '));
        url.searchParams.set('state', state);
        url.searchParams.set('code_challenge', codeChallenge);
        url.searchParams.set('code_challenge_method', 'S256');
        return { url: url.toString(), pkce: 'required' };
      },
      exchangeCode({ app, code, codeVerifier }) {
        if (!codeVerifier)
          throw new ProviderError({
            network: 'x',
            kind: 'validation',
            networkCode: 'pkce_required',
            networkMessage: 'X requires the PKCE code verifier.',
          });
        return tokenCall(app, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: app.redirectUri,
          code_verifier: codeVerifier,
        });
      },
      refresh({ app, refreshToken }) {
        return tokenCall(app, { grant_type: 'refresh_token', refresh_token: refreshToken });
      },
      async revoke({ app, token }) {
        const auth = clientAuth(app);
        await client.request({
          method: 'POST',
          url: '/2/oauth2/revoke',
          data: new URLSearchParams({ token, ...auth.body }).toString(),
          headers: { ...auth.headers, 'Content-Type': 'application/x-www-form-urlencoded' },
        });
      },
    },
    profile: {
      async fetch({ accessToken }) {
        const user = await me(accessToken);
        // Without the tier the deployment's default applies (X_TEXT_LIMIT_DEFAULT), kept with the account.
        const extras = {
          username: user.username,
          ...(user.subscription_type
            ? { subscription_type: user.subscription_type }
            : { text_limit: String(options.defaultTextLimit ?? 280) }),
        };
        return {
          platformAccountId: user.id,
          handle: user.username,
          ...(user.name ? { displayName: user.name } : {}),
          extras,
        };
      },
    },
    lookup: xLookup(options),
    comments: xComments(options),
    publish: {
      async post(input) {
        assertContent(xRules, input);
        const token = input.credentials.accessToken;
        // Read before posting: once the post exists, nothing may fail.
        const username = input.credentials.extras?.username ?? (await me(token)).username;
        const mediaIds = await readyXMedia(options, token, input);
        const response = await createCall(() =>
          client.request<{ data: { id: string } }>({
            method: 'POST',
            url: '/2/tweets',
            data: {
              ...(input.text ? { text: input.text } : {}),
              ...(mediaIds.length > 0 ? { media: { media_ids: mediaIds } } : {}),
              // A thread's later part answers the part before it (X API v2 "Create Post", `reply`).
              ...(input.inReplyTo === undefined ? {} : { reply: { in_reply_to_tweet_id: input.inReplyTo } }),
            },
            headers: { Authorization: `Bearer ${token}` },
          }),
        );
        const id = response.data.data.id;
        return { platformPostId: id, url: `https://x.com/${username}/status/${id}` };
      },
    },
  };
}
