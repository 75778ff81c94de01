import { type Logger } from '@svc/logger';
import { type AnalyticsDeps, type PostAnalyticsCapability } from './analytics/analytics-types.ts';
import { type ProviderConfig } from './config.ts';
import { classifyFacebook } from './facebook/facebook.classify.ts';
import { createFacebookAnalytics } from './facebook/facebook.analytics.ts';
import { type Classifier } from './http/network-client.ts';
import { networkClientFromConfig } from './http/network-client-from-config.ts';
import { classifyInstagram } from './instagram/instagram.classify.ts';
import { createInstagramAnalytics } from './instagram/instagram.analytics.ts';
import { classifyLinkedIn } from './linkedin/linkedin.classify.ts';
import { createLinkedInAnalytics } from './linkedin/linkedin.analytics.ts';
import { classifyTikTok } from './tiktok/tiktok.classify.ts';
import { createTikTokAnalytics } from './tiktok/tiktok.analytics.ts';
import { type Network } from './types.ts';
import { classifyX } from './x/x.classify.ts';
import { createXAnalytics } from './x/x.analytics.ts';

export type NetworkAnalytics = Readonly<Record<Network, PostAnalyticsCapability>>;

/**
 * Builds the analytics capability of every network, each with its own axios client and breaker:
 * analytics reads failing never open the breaker that publishing goes through.
 */
export function analyticsFromConfig(
  config: ProviderConfig,
  options: { logger?: Logger; now?: () => number } = {},
): NetworkAnalytics {
  const now = options.now ?? Date.now;
  const deps = (network: Network, baseURL: string, classify: Classifier): AnalyticsDeps => ({
    client: networkClientFromConfig(config, { network, baseURL, classify }, { logger: options.logger, now }),
    now,
  });
  return {
    instagram: createInstagramAnalytics({
      ...deps('instagram', config.GRAPH_API_URL, classifyInstagram),
      graphVersion: config.GRAPH_API_VERSION,
    }),
    facebook: createFacebookAnalytics({
      ...deps('facebook', config.GRAPH_API_URL, classifyFacebook),
      graphVersion: config.GRAPH_API_VERSION,
    }),
    x: createXAnalytics(deps('x', config.X_API_URL, classifyX)),
    linkedin: createLinkedInAnalytics({
      ...deps('linkedin', config.LINKEDIN_API_URL, classifyLinkedIn),
      version: config.LINKEDIN_VERSION,
    }),
    tiktok: createTikTokAnalytics(deps('tiktok', config.TIKTOK_API_URL, classifyTikTok)),
  };
}
