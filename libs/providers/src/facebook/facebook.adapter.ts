import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { GraphApi } from '../graph/graph-api.ts';
import { graphComments } from '../graph/graph-comments.ts';
import { createGraphOAuth } from '../graph/graph-oauth.ts';
import { listManagedPages } from '../graph/graph-pages.ts';
import { createCall } from '../http/create-call.ts';
import { pollUntil } from '../http/poll.ts';
import { facebookLookup } from './facebook.lookup.ts';
import { assertContent } from '../rules/assert-content.ts';
import {
  type Credentials,
  type MediaInput,
  type Profile,
  type ProviderAdapter,
  type PublishInput,
  type PublishResult,
} from '../types.ts';
import { classifyVideoStatus } from './facebook.classify.ts';
import { createReelPublisher } from './facebook.reel.ts';
import { facebookRules } from './facebook.rules.ts';

export interface FacebookAdapterOptions extends AdapterDeps {
  graphVersion: string;
  authBaseUrl: string;
}

interface PageAccount {
  id: string;
  name?: string;
  access_token?: string;
}

/**
 * A Page as an account, publishing with its own Page token: one derived from a long-lived user
 * token does not expire (developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived,
 * "Long-lived Page Access Token"), so it is stored instead of re-deriving it from the 60-day user
 * token on every publish. A Page token given directly (BYOK) comes back without `access_token` and is kept as given.
 */
function pageProfile(page: PageAccount): Profile {
  const name = page.name ?? page.id;
  return {
    platformAccountId: page.id,
    handle: name,
    displayName: name,
    extras: { page_id: page.id, ...(page.access_token ? { token_kind: 'page' } : {}) },
    ...(page.access_token ? { accessToken: page.access_token } : {}),
  };
}

/** A photo's alt text goes in `alt_text_custom` (Graph API Page photos). */
const altTextOf = (item: MediaInput) => (item.altText ? { alt_text_custom: item.altText } : {});

const missing = (what: string) =>
  new ProviderError({ network: 'facebook', kind: 'validation', networkCode: 'missing_extra', networkMessage: what });
const absolute = (permalink: string) =>
  permalink.startsWith('/') ? `https://www.facebook.com${permalink}` : permalink;

/** Facebook Pages (docs/networks.md §2): publishes with the Page token resolved from the stored token. */
export function createFacebookAdapter(options: FacebookAdapterOptions): ProviderAdapter {
  const api = new GraphApi(options.client, options.graphVersion);
  const publishReel = createReelPublisher(api, options);

  /**
   * The Page token to publish with. Accounts connected since Page tokens are stored hold it already
   * (`token_kind: page`); older ones hold the user token and derive it on each publish.
   */
  const pageToken = async (credentials: Credentials, pageId: string): Promise<string> => {
    if (credentials.extras?.token_kind === 'page') return credentials.accessToken;
    const page = await api.get<PageAccount>(`/${pageId}`, { fields: 'id,name,access_token' }, credentials.accessToken);
    if (!page.access_token) {
      throw new ProviderError({
        network: 'facebook',
        kind: 'permission_missing',
        networkMessage: `The token cannot manage Page ${pageId}.`,
      });
    }
    return page.access_token;
  };

  /** Read after the post exists, so a failure here falls back to the canonical URL instead of failing the post. */
  const permalinkOf = async (postId: string, token: string): Promise<string> => {
    const [pageId, postNumber] = postId.split('_');
    const fallback = `https://www.facebook.com/${pageId}/posts/${postNumber}`;
    const post = await api
      .get<{ permalink_url?: string }>(`/${postId}`, { fields: 'permalink_url' }, token)
      .catch(() => ({ permalink_url: undefined }));
    return post.permalink_url ? absolute(post.permalink_url) : fallback;
  };

  const publishVideo = async (
    input: PublishInput,
    pageId: string,
    token: string,
    url: string,
  ): Promise<PublishResult> => {
    const { id } = await createCall(() =>
      api.post<{ id: string }>(`/${pageId}/videos`, { file_url: url, description: input.text, published: true }, token),
    );
    await input.onHandle?.(id);
    // Still processing when polling stops: the post may yet appear, so the caller reconciles
    // through the video id instead of uploading and posting it again.
    const permalink = await pollUntil(
      options.handoffPolling,
      async () => {
        const video = await api.get<{ status?: { video_status?: string }; permalink_url?: string }>(
          `/${id}`,
          { fields: 'status,permalink_url' },
          token,
        );
        const failure = classifyVideoStatus(video.status);
        if (failure) throw new ProviderError({ network: 'facebook', ...failure });
        return video.status?.video_status === 'ready'
          ? { done: true as const, value: video.permalink_url }
          : { done: false as const };
      },
      () =>
        new ProviderError({
          network: 'facebook',
          kind: 'transient',
          networkCode: 'video_processing_timeout',
          networkMessage: 'Facebook is still processing the video.',
          uncertain: true,
        }),
    );
    return {
      platformPostId: `${pageId}_${id}`,
      url: permalink ? absolute(permalink) : `https://www.facebook.com/${pageId}/videos/${id}/`,
    };
  };

  const post = async (input: PublishInput): Promise<PublishResult> => {
    assertContent(facebookRules, input);
    const pageId = input.credentials.extras?.page_id;
    if (!pageId) throw missing('The Facebook account has no page_id.');
    const token = await pageToken(input.credentials, pageId);
    if (input.options?.post_type === 'reel') return publishReel(input, pageId, token);
    const [first] = input.media;
    if (first?.kind === 'video') return publishVideo(input, pageId, token, first.url);
    if (input.media.length === 1 && first) {
      const photo = await createCall(() =>
        api.post<{ id: string; post_id: string }>(
          `/${pageId}/photos`,
          { url: first.url, caption: input.text, published: true, ...altTextOf(first) },
          token,
        ),
      );
      return { platformPostId: photo.post_id, url: await permalinkOf(photo.post_id, token) };
    }
    const attached: { media_fbid: string }[] = [];
    for (const item of input.media) {
      const photo = await api.post<{ id: string }>(
        `/${pageId}/photos`,
        { url: item.url, published: false, ...altTextOf(item) },
        token,
      );
      attached.push({ media_fbid: photo.id });
    }
    const link = typeof input.options?.link === 'string' ? input.options.link : undefined;
    const created = await createCall(() =>
      api.post<{ id: string; permalink_url?: string }>(
        `/${pageId}/feed`,
        {
          message: input.text || undefined,
          link,
          attached_media: attached.length > 0 ? JSON.stringify(attached) : undefined,
          published: true,
          fields: 'id,permalink_url',
        },
        token,
      ),
    );
    return {
      platformPostId: created.id,
      url: created.permalink_url ? absolute(created.permalink_url) : await permalinkOf(created.id, token),
    };
  };

  return {
    network: 'facebook',
    rules: facebookRules,
    oauth: createGraphOAuth({ network: 'facebook', api, authBaseUrl: options.authBaseUrl, now: options.now }),
    profile: {
      async fetch({ accessToken, extras }) {
        const page = extras?.page_id
          ? await api.get<PageAccount>(`/${extras.page_id}`, { fields: 'id,name,access_token' }, accessToken)
          : (await listManagedPages(api, accessToken, 'id,name,access_token'))[0];
        if (!page)
          throw new ProviderError({
            network: 'facebook',
            kind: 'permission_missing',
            networkMessage: 'The token manages no Facebook Page.',
          });
        return pageProfile(page);
      },
    },
    authors: {
      replacesUser: true,
      // Every Page the user let the app use: Facebook's Login dialog is where a user managing several Pages picks them.
      async list({ accessToken }) {
        return (await listManagedPages(api, accessToken, 'id,name,access_token')).map(pageProfile);
      },
    },
    publish: { post },
    lookup: facebookLookup(api, pageToken),
    comments: graphComments(api, {
      network: 'facebook',
      tokenOf: (credentials) => {
        const pageId = credentials.extras?.page_id;
        if (!pageId) throw missing('The Facebook account has no page_id.');
        return pageToken(credentials, pageId);
      },
      authorOf: (credentials) => credentials.extras?.page_id,
    }),
  };
}
