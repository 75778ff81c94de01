import type { Network } from '@svc/providers';

/**
 * What the service asks each network for: publishing plus the analytics the API serves
 * (../shared/notes/networks.md, scopes per network).
 */
export const DEFAULT_SCOPES: Record<Network, string[]> = {
  instagram: ['instagram_basic', 'instagram_content_publish', 'instagram_manage_insights', 'pages_show_list', 'pages_read_engagement', 'business_management'],
  facebook: ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement', 'read_insights', 'publish_video', 'business_management'],
  x: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
  linkedin: ['openid', 'profile', 'w_member_social', 'r_member_postAnalytics'],
  tiktok: ['user.info.basic', 'video.publish', 'video.upload', 'video.list'],
};
