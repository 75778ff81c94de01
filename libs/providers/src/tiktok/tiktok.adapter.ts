import { type AdapterDeps } from '../adapter-deps.ts';
import { createCall } from '../http/create-call.ts';
import { tiktokLookup } from './tiktok.lookup.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { assertContent } from '../rules/assert-content.ts';
import { type OAuthApp, type ProviderAdapter, type PublishInput, type TokenSet } from '../types.ts';
import { byteReaderOf, emptyMedia } from '../http/upload.ts';
import {
  chunkPlan,
  createTikTokApi,
  initPhotoPost,
  isVerifiedUrl,
  postInfo,
  uploadFile,
  waitPublished,
} from './tiktok.publish.ts';
import { tiktokPostType, tiktokRules } from './tiktok.rules.ts';
import { publishTikTokDraft } from './tiktok.draft.ts';
import { creatorExtras, creatorViolations, type CreatorInfo } from './tiktok.creator.ts';
import { tiktokCodeChallenge } from './tiktok.pkce.ts';

export interface TikTokAdapterOptions extends AdapterDeps {
  authBaseUrl: string;
  /** TIKTOK_VERIFIED_URL_PREFIXES: where TikTok may pull from (PULL_FROM_URL). */
  verifiedUrlPrefixes: readonly string[];
}

interface TtToken {
  access_token: string;
  expires_in?: number;
  open_id?: string;
  refresh_token?: string;
  refresh_expires_in?: number;
  scope?: string;
}

interface TtUser {
  open_id: string;
  username?: string;
  display_name?: string;
}

const BASIC_FIELDS = 'open_id,union_id,avatar_url,display_name';

/**
 * TikTok Content Posting API (docs/networks.md §5): creator_info, then video or photo init, then status
 * polling until the public id exists. TikTok pulls only from verified URL prefixes: a video is sent
 * by PULL_FROM_URL when its URL lies under `verifiedUrlPrefixes` (and `options.source` does not ask
 * for FILE_UPLOAD), by FILE_UPLOAD otherwise; photos can only be pulled, so they need a verified URL.
 * Refresh tokens rotate (Nov-2026 docs): always store the new one.
 */
export function createTikTokAdapter(options: TikTokAdapterOptions): ProviderAdapter {
  const { client, now } = options;
  const api = createTikTokApi(options);

  const tokenCall = async (params: Record<string, string>): Promise<TokenSet> => {
    const response = await client.request<TtToken & { error?: string }>({
      method: 'POST',
      url: '/v2/oauth/token/',
      data: new URLSearchParams(params).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const token = response.data;
    if (token.error !== undefined || !token.access_token) {
      // TikTok may answer OAuth errors with HTTP 200; classify them like any other.
      throw new ProviderError({
        network: 'tiktok',
        kind: token.error === 'invalid_grant' ? 'auth_revoked' : 'validation',
        networkCode: token.error ?? 'no_token',
        networkMessage: 'TikTok refused the token request.',
      });
    }
    return {
      accessToken: token.access_token,
      ...(token.expires_in ? { expiresAt: new Date(now() + token.expires_in * 1000) } : {}),
      ...(token.refresh_token ? { refreshToken: token.refresh_token } : {}),
      ...(token.refresh_expires_in ? { refreshExpiresAt: new Date(now() + token.refresh_expires_in * 1000) } : {}),
      ...(token.scope ? { scopes: token.scope.split(',') } : {}),
      ...(token.open_id ? { extras: { open_id: token.open_id } } : {}),
    };
  };
  const secrets = (app: OAuthApp) => ({ client_key: app.clientId, client_secret: app.clientSecret });

  const userInfoFields = async (accessToken: string, fields: string) =>
    (
      await client.request<{ data?: { user?: TtUser } }>({
        method: 'GET',
        url: '/v2/user/info/',
        params: { fields },
        headers: { Authorization: `Bearer ${accessToken}` },
      })
    ).data.data?.user;

  /**
   * `username` needs `user.info.profile` since TikTok's 2024 scope migration (developers.tiktok.com
   * bulletin user-info-scope-migration); a token granted only `user.info.basic` gets
   * scope_not_authorized for the whole call. Such a connection still works: the basic fields, and
   * the handle from creator_info when publishing.
   */
  const userInfo = async (accessToken: string): Promise<TtUser | undefined> => {
    try {
      return await userInfoFields(accessToken, `${BASIC_FIELDS},username`);
    } catch (error) {
      if (!(error instanceof ProviderError) || error.networkCode !== 'scope_not_authorized') throw error;
      return userInfoFields(accessToken, BASIC_FIELDS);
    }
  };

  /** creator_info at connect, for the accept-time checks; a token without video.publish simply has none. */
  const creatorInfoIfGranted = async (token: string): Promise<CreatorInfo | undefined> => {
    try {
      return await api.post<CreatorInfo>('/v2/post/publish/creator_info/query/', token);
    } catch (error) {
      if (error instanceof ProviderError && error.kind === 'permission_missing') return undefined;
      throw error;
    }
  };

  const publish = async (input: PublishInput) => {
    assertContent(tiktokRules, input);
    // A draft needs no creator_info (its scope is video.upload): the creator sets everything in the app.
    if (tiktokPostType(input.options, input.media).postType === 'draft') return publishTikTokDraft(options, input);
    const token = input.credentials.accessToken;
    const privacy = String(input.options?.privacy_level);
    // Fresh creator_info on every post, as TikTok's audit requires: settings change after connect.
    const creator = await api.post<CreatorInfo>('/v2/post/publish/creator_info/query/', token);
    const refused = creatorViolations(creator, input);
    if (refused.length > 0) {
      throw new ProviderError({
        network: 'tiktok',
        kind: 'validation',
        networkCode: refused.map((item) => item.rule).join(','),
        networkMessage: refused.map((item) => item.message).join(' '),
      });
    }
    const username = creator.creator_username ?? input.credentials.extras?.username ?? '';
    const [first] = input.media;
    let publishId: string;
    let kind: 'video' | 'photo';
    if (first?.kind === 'video') {
      kind = 'video';
      const info = {
        title: input.text,
        ...postInfo(input, privacy, creator),
        disable_duet: input.options?.disable_duet === true || creator.duet_disabled === true,
        disable_stitch: input.options?.disable_stitch === true || creator.stitch_disabled === true,
      };
      if (input.options?.source === 'FILE_UPLOAD' || !isVerifiedUrl(first.url, options.verifiedUrlPrefixes)) {
        const reader = await byteReaderOf(options, 'tiktok', first);
        if (reader.size === 0) throw emptyMedia('tiktok');
        const plan = chunkPlan(reader.size);
        const init = await createCall(() =>
          api.post<{ publish_id: string; upload_url: string }>('/v2/post/publish/video/init/', token, {
            post_info: info,
            source_info: { source: 'FILE_UPLOAD', video_size: reader.size, ...plan },
          }),
        );
        await uploadFile(options, init.upload_url, reader, plan);
        publishId = init.publish_id;
      } else {
        const init = await createCall(() =>
          api.post<{ publish_id: string }>('/v2/post/publish/video/init/', token, {
            post_info: info,
            source_info: { source: 'PULL_FROM_URL', video_url: first.url },
          }),
        );
        publishId = init.publish_id;
      }
    } else {
      kind = 'photo';
      publishId = await initPhotoPost(api, token, input, options.verifiedUrlPrefixes, {
        mode: 'DIRECT_POST',
        info: { ...postInfo(input, privacy, creator), auto_add_music: input.options?.auto_add_music !== false },
      });
    }
    // From here the post may appear whatever happens to this process: the caller keeps the handle.
    await input.onHandle?.(publishId);
    const postId = await waitPublished(options, token, publishId, privacy !== 'SELF_ONLY');
    // A private post (or one still in moderation) has no public id: keep the publish id, which
    // analytics can resolve later through status/fetch.
    return postId
      ? { platformPostId: postId, url: `https://www.tiktok.com/@${username}/${kind}/${postId}` }
      : { platformPostId: publishId, url: `https://www.tiktok.com/@${username}` };
  };

  return {
    network: 'tiktok',
    rules: tiktokRules,
    oauth: {
      pkce: 'optional',
      codeChallengeOf: tiktokCodeChallenge,
      authorizeUrl({ app, state, codeChallenge }) {
        const url = new URL(`${options.authBaseUrl.replace(/\/$/, '')}/v2/auth/authorize/`);
        url.searchParams.set('client_key', app.clientId);
        url.searchParams.set('scope', app.scopes.join(','));
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('redirect_uri', app.redirectUri);
        url.searchParams.set('state', state);
        if (codeChallenge) {
          url.searchParams.set('code_challenge', codeChallenge);
          url.searchParams.set('code_challenge_method', 'S256');
        }
        return { url: url.toString(), pkce: 'optional' };
      },
      exchangeCode: ({ app, code, codeVerifier }) =>
        tokenCall({
          ...secrets(app),
          code,
          grant_type: 'authorization_code',
          redirect_uri: app.redirectUri,
          ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
        }),
      refresh: ({ app, refreshToken }) =>
        tokenCall({ ...secrets(app), grant_type: 'refresh_token', refresh_token: refreshToken }),
      async revoke({ app, token }) {
        await client.request({
          method: 'POST',
          url: '/v2/oauth/revoke/',
          data: new URLSearchParams({ ...secrets(app), token }).toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
      },
    },
    profile: {
      async fetch({ accessToken }) {
        const user = await userInfo(accessToken);
        if (!user)
          throw new ProviderError({ network: 'tiktok', kind: 'transient', networkMessage: 'TikTok returned no user.' });
        const creator = await creatorInfoIfGranted(accessToken);
        return {
          platformAccountId: user.open_id,
          handle: user.username ?? creator?.creator_username ?? user.open_id,
          ...(user.display_name ? { displayName: user.display_name } : {}),
          extras: {
            open_id: user.open_id,
            ...(user.username ? { username: user.username } : {}),
            ...(creator ? creatorExtras(creator) : {}),
          },
        };
      },
    },
    publish: { post: publish },
    lookup: tiktokLookup(options),
  };
}
