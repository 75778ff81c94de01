import { LINKEDIN_SCOPES, type LinkedInAuthorType, type Network } from '@svc/providers';

/**
 * What the service asks each network for when the OAuth app names no scopes of its own: publishing
 * plus the analytics the API serves (docs/networks.md §1.1-§5.1, scopes per network). LinkedIn's
 * member post statistics (`r_member_postAnalytics`) belong to a vetted product and are not asked by
 * default: requesting them fails authorization for apps without it (libs/providers linkedin.scopes.ts).
 */
export const DEFAULT_SCOPES: Record<Network, string[]> = {
  instagram: [
    'instagram_basic',
    'instagram_content_publish',
    'instagram_manage_insights',
    'pages_show_list',
    'pages_read_engagement',
    'business_management',
  ],
  facebook: [
    'pages_show_list',
    'pages_manage_posts',
    'pages_read_engagement',
    'read_insights',
    'publish_video',
    'business_management',
  ],
  x: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
  linkedin: [...LINKEDIN_SCOPES.member],
  // username needs user.info.profile since TikTok's 2024 scope migration.
  tiktok: ['user.info.basic', 'user.info.profile', 'video.publish', 'video.upload', 'video.list'],
};

/** Default scopes for what the connection publishes as (LinkedIn organization pages need their own). */
export function defaultScopes(provider: Network, authorType: LinkedInAuthorType | undefined): string[] {
  if (provider === 'linkedin' && authorType !== undefined) return [...LINKEDIN_SCOPES[authorType]];
  return DEFAULT_SCOPES[provider];
}
