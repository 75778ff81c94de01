import { type MetricValue } from '../state/sandbox-state.ts';

const IG_METRICS = ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions', 'follows', 'profile_visits', 'profile_activity'];
const FB_METRICS = ['post_clicks', 'post_clicks_by_type', 'post_reactions_by_type_total', 'post_total_media_view_unique', 'post_engaged_users'];

const TITLES: Record<string, string> = {
  views: 'Views',
  reach: 'Accounts reached',
  likes: 'Likes',
  comments: 'Comments',
  shares: 'Shares',
  saved: 'Saved',
  total_interactions: 'Post interactions',
  post_clicks: 'Post Clicks',
  post_reactions_by_type_total: 'Lifetime Total post Reactions by Type.',
  post_engaged_users: 'Lifetime Engaged Users',
};

type InsightsAnswer = { data: object[] } | { error: string };

/**
 * Graph insights in the canonical `{name, period, values:[{value}], title, description, id}` form.
 * Unknown or deprecated metrics (impressions, plays, ...) fail the whole call with (#100), like Graph.
 */
export function insightsFor(network: 'instagram' | 'facebook', objectId: string, metrics: string[], stored: Record<string, MetricValue>): InsightsAnswer {
  const allowed = network === 'instagram' ? IG_METRICS : FB_METRICS;
  const unknown = metrics.find((metric) => !allowed.includes(metric));
  if (unknown !== undefined) {
    return {
      error:
        network === 'instagram'
          ? `(#100) metric[${metrics.indexOf(unknown)}] must be one of the following values: ${allowed.join(', ')}`
          : '(#100) The value must be a valid insights metric',
    };
  }
  const data = metrics.map((name) => {
    let value: MetricValue = stored[name] ?? 0;
    if (name === 'post_reactions_by_type_total' && typeof value === 'number') value = value === 0 ? {} : { like: value };
    if (name === 'post_clicks_by_type' && typeof value === 'number') value = value === 0 ? {} : { 'other clicks': value };
    return {
      name,
      period: 'lifetime',
      values: [{ value }],
      title: TITLES[name] ?? name,
      description: `Lifetime: ${TITLES[name] ?? name}`,
      id: `${objectId}/insights/${name}/lifetime`,
    };
  });
  return { data };
}
