import { mapMemberAnalytics, mapOrgStatistics } from './linkedin.analytics.ts';

// organizationalEntityShareStatistics as LI-ORG-STATS documents it.
const orgAnswer = {
  paging: { count: 10, start: 0, links: [] },
  elements: [
    {
      totalShareStatistics: {
        uniqueImpressionsCount: 40,
        shareCount: 2,
        engagement: 0.125,
        clickCount: 3,
        likeCount: 4,
        impressionCount: 64,
        commentCount: 1,
      },
      share: 'urn:li:share:1000000',
      organizationalEntity: 'urn:li:organization:2414183',
    },
  ],
};

describe('LinkedIn analytics mapping', () => {
  it('maps organization statistics to share_statistics_* counters (the engagement rate is not a count)', () => {
    const readings = mapOrgStatistics(orgAnswer, ['urn:li:share:1000000', 'urn:li:share:1000001']);
    expect(readings.get('urn:li:share:1000000')).toEqual({
      status: 'read',
      metrics: {
        share_statistics_impression_count: 64,
        share_statistics_unique_impressions_count: 40,
        share_statistics_click_count: 3,
        share_statistics_like_count: 4,
        share_statistics_comment_count: 1,
        share_statistics_share_count: 2,
      },
      warnings: [],
    });
    expect(readings.get('urn:li:share:1000001')?.status).toBe('failed');
  });

  it('maps member creator analytics, one answer per query type', () => {
    const answer = (metricType: string, count: number) => ({
      paging: {},
      elements: [{ count, metricType, targetEntity: { share: 'urn:li:share:7' } }],
    });
    const reading = mapMemberAnalytics({
      IMPRESSION: answer('IMPRESSION', 1234),
      MEMBERS_REACHED: answer('MEMBERS_REACHED', 900),
      RESHARE: answer('RESHARE', 3),
      REACTION: answer('REACTION', 40),
      COMMENT: answer('COMMENT', 6),
    });
    expect(reading).toEqual({
      status: 'read',
      metrics: {
        share_statistics_impression_count: 1234,
        share_statistics_unique_impressions_count: 900,
        share_statistics_share_count: 3,
        share_statistics_like_count: 40,
        share_statistics_comment_count: 6,
      },
      warnings: [],
    });
  });
});
