import { mapTikTokVideos } from './tiktok.analytics.ts';

// Fixture in the documented shape of POST /v2/video/query/ (TT-VIDEO-OBJ), `data` part.
const fixture = {
  videos: [
    {
      id: '7290000000000000000',
      like_count: 12,
      comment_count: 3,
      share_count: 1,
      view_count: 345,
      share_url: 'https://www.tiktok.com/@user/video/7290000000000000000',
      create_time: 1697000000,
    },
  ],
};

describe('TikTok analytics mapping', () => {
  it('maps the four counters and fails only the videos TikTok did not return', () => {
    const readings = mapTikTokVideos(fixture, ['7290000000000000000', '7290000000000000001']);
    expect(readings.get('7290000000000000000')).toEqual({
      status: 'read',
      metrics: { view_count: 345, like_count: 12, comment_count: 3, share_count: 1 },
      warnings: [],
    });
    expect(readings.get('7290000000000000001')).toEqual({
      status: 'failed',
      message: expect.stringContaining('did not return video 7290000000000000001'),
    });
  });

  it('warns about a counter TikTok left out instead of reporting 0', () => {
    const reading = mapTikTokVideos({ videos: [{ id: '1', view_count: 5 }] }, ['1']).get('1');
    expect(reading).toEqual({
      status: 'read',
      metrics: { view_count: 5 },
      warnings: expect.arrayContaining(['TikTok did not return like_count for this video.']),
    });
  });
});
