import { ProviderError } from '../errors/provider-error.ts';
import {
  IG_METRICS_BY_PRODUCT,
  isNotEnoughViewers,
  mapIgInsights,
  mapNotEnoughViewers,
} from './instagram.analytics.ts';

// Canonical Graph insights shape (META-IG-INSIGHTS).
const insight = (name: string, value: number) => ({
  name,
  period: 'lifetime',
  values: [{ value }],
  title: name,
  description: '',
  id: `17895695668004550/insights/${name}/lifetime`,
});
const feedAnswer = {
  data: [
    insight('views', 5021),
    insight('reach', 1234),
    insight('likes', 40),
    insight('comments', 5),
    insight('shares', 3),
    insight('saved', 2),
  ],
};

describe('Instagram analytics mapping', () => {
  it('asks each product type only for metrics Graph serves for it (stories have no likes, comments or saves)', () => {
    expect(IG_METRICS_BY_PRODUCT.FEED).toEqual(['views', 'reach', 'likes', 'comments', 'shares', 'saved']);
    expect(IG_METRICS_BY_PRODUCT.REELS).toEqual(IG_METRICS_BY_PRODUCT.FEED);
    expect(IG_METRICS_BY_PRODUCT.STORY).toEqual(['views', 'reach', 'shares']);
  });

  it('maps feed and carousel insights and sums total_interactions from likes, comments, shares and saves', () => {
    for (const media of [
      { media_type: 'IMAGE', media_product_type: 'FEED' },
      { media_type: 'CAROUSEL_ALBUM', media_product_type: 'FEED' },
      { media_type: 'VIDEO', media_product_type: 'REELS' },
    ]) {
      expect(mapIgInsights(media, feedAnswer)).toEqual({
        status: 'read',
        metrics: { views: 5021, reach: 1234, likes: 40, comments: 5, shares: 3, saved: 2, total_interactions: 50 },
        warnings: [],
      });
    }
  });

  it('reports a story without the counters stories do not have, and says why', () => {
    const reading = mapIgInsights(
      { media_type: 'IMAGE', media_product_type: 'STORY' },
      { data: [insight('views', 90), insight('reach', 80), insight('shares', 1)] },
    );
    expect(reading).toEqual({
      status: 'read',
      metrics: { views: 90, reach: 80, shares: 1 },
      warnings: [
        'Instagram has no likes, comments, saved for stories.',
        expect.stringContaining('total_interactions is not reported'),
      ],
    });
  });

  it('treats "(#10) Not enough viewers" as a warning, keeping the media counters', () => {
    const error = new ProviderError({
      network: 'instagram',
      kind: 'permission_missing',
      networkCode: '10',
      networkMessage: '(#10) Not enough viewers for the media to show insights',
    });
    expect(isNotEnoughViewers(error)).toBe(true);
    expect(
      isNotEnoughViewers(
        new ProviderError({
          network: 'instagram',
          kind: 'permission_missing',
          networkCode: '10',
          networkMessage: '(#10) Application does not have permission for this action',
        }),
      ),
    ).toBe(false);
    const reading = mapNotEnoughViewers({ like_count: 4, comments_count: 1 });
    expect(reading).toEqual({
      status: 'read',
      metrics: { likes: 4, comments: 1 },
      warnings: [
        expect.stringContaining('not enough viewers'),
        expect.stringContaining('total_interactions is not reported'),
      ],
    });
  });
});
