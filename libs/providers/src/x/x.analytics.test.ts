import { mapXTweets, xPauseUntil } from './x.analytics.ts';

// Fixture in the documented shape of GET /2/tweets?ids=... (xdevplatform/docs metrics.mdx).
const fixture = {
  data: [
    {
      id: '1234567890',
      text: 'Hello world!',
      public_metrics: {
        retweet_count: 50,
        reply_count: 12,
        like_count: 234,
        quote_count: 5,
        bookmark_count: 8,
        impression_count: 5432,
      },
      non_public_metrics: { impression_count: 5432, url_link_clicks: 89, user_profile_clicks: 156, engagements: 345 },
      organic_metrics: {
        impression_count: 5432,
        like_count: 234,
        reply_count: 12,
        retweet_count: 50,
        url_link_clicks: 89,
        user_profile_clicks: 156,
      },
    },
    {
      id: '1234567891',
      text: 'old post',
      public_metrics: {
        retweet_count: 1,
        reply_count: 0,
        like_count: 3,
        quote_count: 0,
        bookmark_count: 0,
        impression_count: 77,
      },
    },
  ],
  errors: [
    {
      value: '999',
      detail: 'Could not find tweet with ids: [999].',
      title: 'Not Found Error',
      resource_id: '999',
      type: 'https://api.x.com/2/problems/resource-not-found',
    },
  ],
};

describe('X analytics mapping', () => {
  it('maps public metrics to the spec keys and adds owner-only counters when X returned them', () => {
    const readings = mapXTweets(fixture, ['1234567890', '1234567891', '999']);
    expect(readings.get('1234567890')).toEqual({
      status: 'read',
      metrics: {
        impression_count: 5432,
        like_count: 234,
        retweet_count: 50,
        reply_count: 12,
        quote_count: 5,
        bookmark_count: 8,
        url_link_clicks: 89,
        user_profile_clicks: 156,
        engagements: 345,
      },
      warnings: [],
    });
    expect(readings.get('1234567891')).toEqual({
      status: 'read',
      metrics: {
        impression_count: 77,
        like_count: 3,
        retweet_count: 1,
        reply_count: 0,
        quote_count: 0,
        bookmark_count: 0,
      },
      warnings: [],
    });
    expect(readings.get('999')).toEqual({ status: 'failed', message: 'Could not find tweet with ids: [999].' });
  });

  it('never fills a missing public metric with 0', () => {
    const reading = mapXTweets({ data: [{ id: '1', public_metrics: { like_count: 2 } }] }, ['1']).get('1');
    expect(reading).toEqual({
      status: 'read',
      metrics: { like_count: 2 },
      warnings: expect.arrayContaining(['X did not return impression_count for this post.']),
    });
  });

  it('pauses the account until the window resets when no calls remain', () => {
    expect(xPauseUntil({ 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': '1700000900' })).toBe(1_700_000_900_000);
    expect(xPauseUntil({ 'x-rate-limit-remaining': '12', 'x-rate-limit-reset': '1700000900' })).toBeUndefined();
  });
});
