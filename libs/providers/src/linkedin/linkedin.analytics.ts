import {
  type AnalyticsDeps,
  chunk,
  integerOf,
  type AnalyticsBatch,
  type PostAnalyticsCapability,
  type PostReading,
} from '../analytics/analytics-types.ts';
import { type Credentials, type PostMetrics } from '../types.ts';

/** Posts per organizationalEntityShareStatistics call (its `shares=List(...)` takes many). */
export const LINKEDIN_ORG_BATCH = 20;

/**
 * organizationalEntityShareStatistics counters -> spec keys. `engagement` is a rate (a fraction), not
 * a count, so it has no place among the integer metrics and is left out.
 */
const ORG_FIELDS: Record<string, string> = {
  impressionCount: 'share_statistics_impression_count',
  uniqueImpressionsCount: 'share_statistics_unique_impressions_count',
  clickCount: 'share_statistics_click_count',
  likeCount: 'share_statistics_like_count',
  commentCount: 'share_statistics_comment_count',
  shareCount: 'share_statistics_share_count',
};

/** memberCreatorPostAnalytics `queryType` -> spec key (docs/networks.md §4.5). */
export const MEMBER_QUERY_TYPES: Record<string, string> = {
  IMPRESSION: 'share_statistics_impression_count',
  MEMBERS_REACHED: 'share_statistics_unique_impressions_count',
  RESHARE: 'share_statistics_share_count',
  REACTION: 'share_statistics_like_count',
  COMMENT: 'share_statistics_comment_count',
};

export interface OrgStatisticsBody {
  elements?: { share?: string; ugcPost?: string; totalShareStatistics?: Record<string, unknown> }[];
}

/** Pure mapping of an organization statistics answer, one reading per requested post URN. */
export function mapOrgStatistics(body: OrgStatisticsBody, urns: readonly string[]): Map<string, PostReading> {
  const byUrn = new Map(
    (body.elements ?? []).map((element) => [element.share ?? element.ugcPost, element.totalShareStatistics]),
  );
  const readings = new Map<string, PostReading>();
  for (const urn of urns) {
    const totals = byUrn.get(urn);
    if (!totals) {
      readings.set(urn, { status: 'failed', message: `LinkedIn returned no statistics for ${urn}.` });
      continue;
    }
    const metrics: PostMetrics = {};
    const warnings: string[] = [];
    for (const [field, key] of Object.entries(ORG_FIELDS)) {
      const value = integerOf(totals[field]);
      if (value === undefined) warnings.push(`LinkedIn returned no ${field} for this post.`);
      else metrics[key] = value;
    }
    readings.set(urn, { status: 'read', metrics, warnings });
  }
  return readings;
}

export interface MemberAnalyticsBody {
  elements?: { count?: unknown; metricType?: string }[];
}

/** Pure mapping of the member analytics answers, one per `queryType`. */
export function mapMemberAnalytics(answers: Record<string, MemberAnalyticsBody>): PostReading {
  const metrics: PostMetrics = {};
  const warnings: string[] = [];
  for (const [queryType, key] of Object.entries(MEMBER_QUERY_TYPES)) {
    const element = answers[queryType]?.elements?.find(
      (item) => item.metricType === undefined || item.metricType === queryType,
    );
    const value = integerOf(element?.count);
    if (value === undefined) warnings.push(`LinkedIn returned no ${queryType} count for this post.`);
    else metrics[key] = value;
  }
  return { status: 'read', metrics, warnings };
}

const isOrganization = (urn: string | undefined) => urn?.startsWith('urn:li:organization:') === true;
const listKey = (urn: string) => (urn.startsWith('urn:li:ugcPost:') ? 'ugcPosts' : 'shares');

/**
 * LinkedIn post statistics: the organization endpoint (batched) for Page posts, the member creator
 * endpoint (one call per metric) for personal posts, chosen by the account's author URN.
 */
export function createLinkedInAnalytics(deps: AnalyticsDeps & { version: string }): PostAnalyticsCapability {
  const headers = (token: string) => ({
    Authorization: `Bearer ${token}`,
    'LinkedIn-Version': deps.version,
    'X-Restli-Protocol-Version': '2.0.0',
  });

  const organization = async (credentials: Credentials, author: string, urns: readonly string[]) => {
    const readings = new Map<string, PostReading>();
    for (const group of chunk(urns, LINKEDIN_ORG_BATCH)) {
      const lists = ['shares', 'ugcPosts']
        .map((key) => [key, group.filter((urn) => listKey(urn) === key)] as const)
        .filter(([, items]) => items.length > 0)
        .map(([key, items]) => `${key}=List(${items.map(encodeURIComponent).join(',')})`);
      const response = await deps.client.request<OrgStatisticsBody>({
        method: 'GET',
        url: `/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${encodeURIComponent(author)}&${lists.join('&')}`,
        headers: headers(credentials.accessToken),
      });
      for (const [urn, reading] of mapOrgStatistics(response.data, group)) readings.set(urn, reading);
    }
    return readings;
  };

  const member = async (credentials: Credentials, urn: string): Promise<PostReading> => {
    const entity = `(${urn.startsWith('urn:li:ugcPost:') ? 'ugc' : 'share'}:${encodeURIComponent(urn)})`;
    const answers: Record<string, MemberAnalyticsBody> = {};
    for (const queryType of Object.keys(MEMBER_QUERY_TYPES)) {
      const response = await deps.client.request<MemberAnalyticsBody>({
        method: 'GET',
        url: `/rest/memberCreatorPostAnalytics?q=entity&entity=${entity}&queryType=${queryType}&aggregation=TOTAL`,
        headers: headers(credentials.accessToken),
      });
      answers[queryType] = response.data;
    }
    return mapMemberAnalytics(answers);
  };

  return {
    network: 'linkedin',
    async read({ credentials, platformPostIds }): Promise<AnalyticsBatch> {
      const author = credentials.extras?.author_urn;
      if (isOrganization(author)) return { readings: await organization(credentials, author!, platformPostIds) };
      const readings = new Map<string, PostReading>();
      for (const urn of platformPostIds) readings.set(urn, await member(credentials, urn));
      return { readings };
    },
  };
}
