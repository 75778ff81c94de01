import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { assertContent } from '../rules/assert-content.ts';
import { type Credentials, type OAuthApp, type ProviderAdapter, type TokenSet } from '../types.ts';
import { createCall } from '../http/create-call.ts';
import { linkedinComments } from './linkedin.comments.ts';
import { linkedinLookup } from './linkedin.lookup.ts';
import { readyLinkedInMedia, type LinkedInRest } from './linkedin.media.ts';
import { linkedinAuthors, organizationProfile } from './linkedin.organizations.ts';
import { linkedinRules } from './linkedin.rules.ts';
import { toLittleText } from './linkedin.text.ts';

export interface LinkedInAdapterOptions extends AdapterDeps {
  authBaseUrl: string;
  version: string;
}

interface LiToken {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  refresh_token_expires_in?: number;
  scope?: string;
  id_token?: string;
}

const isOrganization = (urn: string | undefined) => urn?.startsWith('urn:li:organization:') === true;

/**
 * LinkedIn Posts API (docs/networks.md §4): versioned `/rest/*` with `LinkedIn-Version`; 201 + `x-restli-id`.
 * Refresh tokens (partners only) are not rotated: the same one comes back with a shrinking lifetime.
 */
export function createLinkedInAdapter(options: LinkedInAdapterOptions): ProviderAdapter {
  const { client, now } = options;
  const authBase = options.authBaseUrl.replace(/\/$/, '');
  const rest: LinkedInRest = {
    headers: (token) => ({
      Authorization: `Bearer ${token}`,
      'LinkedIn-Version': options.version,
      'X-Restli-Protocol-Version': '2.0.0',
      'Content-Type': 'application/json',
    }),
  };

  const tokenCall = async (params: Record<string, string>): Promise<TokenSet> => {
    const response = await client.request<LiToken>({
      method: 'POST',
      url: `${authBase}/oauth/v2/accessToken`,
      data: new URLSearchParams(params).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const token = response.data;
    return {
      accessToken: token.access_token,
      ...(token.expires_in ? { expiresAt: new Date(now() + token.expires_in * 1000) } : {}),
      ...(token.refresh_token ? { refreshToken: token.refresh_token } : {}),
      ...(token.refresh_token_expires_in
        ? { refreshExpiresAt: new Date(now() + token.refresh_token_expires_in * 1000) }
        : {}),
      ...(token.scope ? { scopes: token.scope.split(/[,\s]+/).filter(Boolean) } : {}),
      ...(token.id_token ? { extras: { id_token: token.id_token } } : {}),
    };
  };
  const secrets = (app: OAuthApp) => ({ client_id: app.clientId, client_secret: app.clientSecret });

  const userinfo = async (token: string) =>
    (
      await client.request<{ sub: string; name?: string; email?: string }>({
        method: 'GET',
        url: '/v2/userinfo',
        headers: { Authorization: `Bearer ${token}` },
      })
    ).data;

  const authorOf = async (credentials: Credentials) =>
    credentials.extras?.author_urn ?? `urn:li:person:${(await userinfo(credentials.accessToken)).sub}`;

  return {
    network: 'linkedin',
    rules: linkedinRules,
    oauth: {
      pkce: 'none',
      authorizeUrl({ app, state }) {
        const url = new URL(`${authBase}/oauth/v2/authorization`);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('client_id', app.clientId);
        url.searchParams.set('redirect_uri', app.redirectUri);
        url.searchParams.set('state', state);
        url.searchParams.set('scope', app.scopes.join(' '));
        return { url: url.toString(), pkce: 'none' };
      },
      exchangeCode: ({ app, code }) =>
        tokenCall({ grant_type: 'authorization_code', code, redirect_uri: app.redirectUri, ...secrets(app) }),
      refresh: ({ app, refreshToken }) =>
        tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken, ...secrets(app) }),
      async revoke({ app, token }) {
        await client.request({
          method: 'POST',
          url: `${authBase}/oauth/v2/revoke`,
          data: new URLSearchParams({ token, ...secrets(app) }).toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
      },
    },
    profile: {
      async fetch({ accessToken, extras }) {
        const member = await userinfo(accessToken);
        if (isOrganization(extras?.author_urn))
          return organizationProfile(options, rest, accessToken, extras!.author_urn!);
        const urn = `urn:li:person:${member.sub}`;
        return {
          platformAccountId: urn,
          handle: member.email ?? member.sub,
          ...(member.name ? { displayName: member.name } : {}),
          extras: { author_urn: urn },
        };
      },
    },
    authors: linkedinAuthors(options, rest),
    lookup: linkedinLookup(options, rest, authorOf),
    comments: linkedinComments(options, rest, authorOf),
    publish: {
      async post(input) {
        assertContent(linkedinRules, input);
        const token = input.credentials.accessToken;
        const author = await authorOf(input.credentials);
        const ids = await readyLinkedInMedia(options, rest, token, author, input);
        const title = typeof input.options?.title === 'string' ? input.options.title : undefined;
        // Alt text rides on each image of the content (Posts API `altText`, MultiImage `images[].altText`).
        const described = (id: string, index: number) => {
          const altText = input.media[index]?.altText;
          return altText ? { id, altText } : { id };
        };
        const content =
          ids.length === 0
            ? {}
            : ids.length === 1
              ? { content: { media: { ...described(ids[0]!, 0), ...(title ? { title } : {}) } } }
              : { content: { multiImage: { images: ids.map(described) } } };
        const response = await createCall(() =>
          client.request({
            method: 'POST',
            url: '/rest/posts',
            data: {
              author,
              commentary: toLittleText(input.text),
              visibility: typeof input.options?.visibility === 'string' ? input.options.visibility : 'PUBLIC',
              distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
              lifecycleState: 'PUBLISHED',
              isReshareDisabledByAuthor: false,
              ...content,
            },
            headers: rest.headers(token),
          }),
        );
        const urn = response.headers['x-restli-id'] as string | undefined;
        // A 201 without the id: the post exists, so only a lookup may find its id.
        if (!urn)
          throw new ProviderError({
            network: 'linkedin',
            kind: 'transient',
            networkMessage: 'LinkedIn did not return the post id (x-restli-id).',
            uncertain: true,
          });
        return { platformPostId: urn, url: `https://www.linkedin.com/feed/update/${urn}` };
      },
    },
  };
}
