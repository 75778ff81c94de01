import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { GraphApi } from '../graph/graph-api.ts';
import { graphComments } from '../graph/graph-comments.ts';
import { createGraphOAuth } from '../graph/graph-oauth.ts';
import { listManagedPages } from '../graph/graph-pages.ts';
import { createCall } from '../http/create-call.ts';
import { pollUntil } from '../http/poll.ts';
import { instagramLookup } from './instagram.lookup.ts';
import { assertContent } from '../rules/assert-content.ts';
import { type MediaInput, type ProviderAdapter, type PublishInput, type PublishResult } from '../types.ts';
import { classifyContainerStatus } from './instagram.classify.ts';
import { deferredQuotaError, QUOTA_CODE, quotaResetMs } from './instagram.quota.ts';
import { instagramRules } from './instagram.rules.ts';

export interface InstagramAdapterOptions extends AdapterDeps {
  graphVersion: string;
  authBaseUrl: string;
}
const PUBLISH_ATTEMPTS = 3;

const missing = (what: string) =>
  new ProviderError({ network: 'instagram', kind: 'validation', networkCode: 'missing_extra', networkMessage: what });

/**
 * Instagram with Facebook Login (docs/networks.md §1): container -> poll `status_code` until FINISHED
 * -> `media_publish` (retried on 9007/2207027 "not ready") -> permalink.
 */
export function createInstagramAdapter(options: InstagramAdapterOptions): ProviderAdapter {
  const api = new GraphApi(options.client, options.graphVersion);

  /**
   * `published: true` for the post's own container, whose id the caller holds as the attempt's
   * handle: still processing when polling stops is then uncertain, reconciled through that handle
   * (asked again later without holding a worker) instead of a new container.
   */
  const waitFinished = (containerId: string, token: string, own = false) =>
    pollUntil(
      own ? options.handoffPolling : options.polling,
      async () => {
        const container = await api.get<{ status_code?: string; status?: string }>(
          `/${containerId}`,
          { fields: 'status_code,status' },
          token,
        );
        const statusCode = container.status_code ?? 'IN_PROGRESS';
        const failure = classifyContainerStatus(statusCode, container.status);
        if (failure) throw new ProviderError({ network: 'instagram', ...failure });
        return statusCode === 'FINISHED' || statusCode === 'PUBLISHED'
          ? { done: true as const, value: statusCode }
          : { done: false as const };
      },
      () =>
        new ProviderError({
          network: 'instagram',
          kind: 'transient',
          networkCode: 'IN_PROGRESS',
          networkMessage: 'Instagram is still processing the media.',
          uncertain: own,
        }),
    );

  /**
   * One media container. Images carry their alt text (`alt_text`, image containers only); a video is
   * a carousel item (`VIDEO`) or a reel (`REELS`); a story is `STORIES` with either.
   */
  const createContainer = async (
    igUserId: string,
    token: string,
    item: MediaInput,
    params: Record<string, string | boolean | undefined>,
    story = false,
  ) => {
    const media =
      item.kind === 'image'
        ? {
            image_url: item.url,
            ...(story ? { media_type: 'STORIES' } : {}),
            ...(item.altText ? { alt_text: item.altText } : {}),
          }
        : { video_url: item.url, media_type: story ? 'STORIES' : params.is_carousel_item ? 'VIDEO' : 'REELS' };
    const { id } = await api.post<{ id: string }>(`/${igUserId}/media`, { ...media, ...params }, token);
    return id;
  };

  const publishContainer = async (igUserId: string, containerId: string, token: string): Promise<string> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { id } = await createCall(() =>
          api.post<{ id: string }>(`/${igUserId}/media_publish`, { creation_id: containerId }, token),
        );
        return id;
      } catch (error) {
        if (error instanceof ProviderError && error.networkCode === QUOTA_CODE) {
          throw deferredQuotaError(error, await quotaResetMs(api, igUserId, token, options.now()));
        }
        const notReady = error instanceof ProviderError && error.networkCode === '9007/2207027';
        if (!notReady || attempt >= PUBLISH_ATTEMPTS) throw error;
        await waitFinished(containerId, token);
      }
    }
  };

  const post = async (input: PublishInput): Promise<PublishResult> => {
    assertContent(instagramRules, input);
    const igUserId = input.credentials.extras?.ig_user_id;
    if (!igUserId) throw missing('The Instagram account has no ig_user_id.');
    const token = input.credentials.accessToken;
    const postType = typeof input.options?.post_type === 'string' ? input.options.post_type : 'feed';
    let containerId: string;
    if (postType === 'story') {
      // A story has no caption: the post's text stays in its record only (docs/networks.md, "Post kinds").
      containerId = await createContainer(igUserId, token, input.media[0]!, {}, true);
    } else if (input.media.length === 1) {
      const [item] = input.media as [MediaInput];
      containerId = await createContainer(igUserId, token, item, {
        caption: input.text,
        // A feed video is published as a reel shared to the feed; a reel may stay off the grid.
        ...(item.kind === 'video'
          ? { share_to_feed: postType === 'feed' || input.options?.share_to_feed !== false }
          : {}),
      });
    } else {
      const children: string[] = [];
      for (const item of input.media)
        children.push(await createContainer(igUserId, token, item, { is_carousel_item: true }));
      for (const child of children) await waitFinished(child, token);
      const parent = await api.post<{ id: string }>(
        `/${igUserId}/media`,
        { media_type: 'CAROUSEL', children: children.join(','), caption: input.text },
        token,
      );
      containerId = parent.id;
    }
    await input.onHandle?.(containerId);
    await waitFinished(containerId, token, true);
    const mediaId = await publishContainer(igUserId, containerId, token);
    // The post exists: a failed permalink read falls back to the profile instead of failing it.
    const media = await api
      .get<{ permalink?: string }>(`/${mediaId}`, { fields: 'id,permalink' }, token)
      .catch(() => ({ permalink: undefined }));
    return {
      platformPostId: mediaId,
      url: media.permalink ?? `https://www.instagram.com/${input.credentials.extras?.username ?? ''}`,
    };
  };

  return {
    network: 'instagram',
    rules: instagramRules,
    oauth: createGraphOAuth({ network: 'instagram', api, authBaseUrl: options.authBaseUrl, now: options.now }),
    profile: {
      /**
       * Found through the user's Pages, the account keeps the token of the Page it is linked to: a
       * Page token derived from a long-lived user token does not expire, and the Instagram Graph API
       * accepts it for the linked account, so nothing depends on re-exchanging the 60-day user token
       * (`fb_exchange_token` is meant for short-lived tokens) (developers.facebook.com/docs/
       * facebook-login/guides/access-tokens/get-long-lived). An explicit `ig_user_id` (BYOK) keeps the
       * token it was given.
       */
      async fetch({ accessToken, extras }) {
        let account: { id: string; username?: string; name?: string } | undefined;
        let pageToken: string | undefined;
        if (extras?.ig_user_id) {
          account = await api.get(`/${extras.ig_user_id}`, { fields: 'id,username,name' }, accessToken);
        } else {
          const pages = await listManagedPages(
            api,
            accessToken,
            'id,name,access_token,instagram_business_account{id,username}',
          );
          const page = pages.find((item) => item.instagram_business_account);
          if (page?.instagram_business_account) {
            account = await api.get(
              `/${page.instagram_business_account.id}`,
              { fields: 'id,username,name' },
              accessToken,
            );
            if (account) account = { ...account, id: page.instagram_business_account.id };
            pageToken = page.access_token;
          }
        }
        if (!account)
          throw new ProviderError({
            network: 'instagram',
            kind: 'permission_missing',
            networkMessage: 'No Instagram professional account is linked to a Page of this token.',
          });
        const handle = account.username ?? account.id;
        return {
          platformAccountId: account.id,
          handle,
          ...(account.name ? { displayName: account.name } : {}),
          extras: { ig_user_id: account.id, username: handle, ...(pageToken ? { token_kind: 'page' } : {}) },
          ...(pageToken ? { accessToken: pageToken } : {}),
        };
      },
    },
    publish: { post },
    lookup: instagramLookup(api),
    comments: graphComments(api, {
      network: 'instagram',
      tokenOf: async (credentials) => credentials.accessToken,
      authorOf: (credentials) => credentials.extras?.ig_user_id,
    }),
  };
}
