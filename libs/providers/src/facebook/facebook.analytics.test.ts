import { FACEBOOK_RETIRED_WARNING, mapFacebookInsights, sumByType, videoIdOf } from './facebook.analytics.ts';

// Graph post insights as docs/networks.md §2.5 documents them: reactions come by type.
const postAnswer = {
  data: [
    {
      name: 'post_clicks',
      period: 'lifetime',
      values: [{ value: 13 }],
      title: 'Post Clicks',
      description: '',
      id: '1_2/insights/post_clicks/lifetime',
    },
    {
      name: 'post_reactions_by_type_total',
      period: 'lifetime',
      values: [{ value: { like: 12, love: 3, wow: 1 } }],
      title: 'Reactions',
      description: '',
      id: '1_2/insights/post_reactions_by_type_total/lifetime',
    },
  ],
};

describe('Facebook analytics mapping', () => {
  it('sums reactions by type and never reports the retired post_engaged_users', () => {
    const reading = mapFacebookInsights(postAnswer);
    expect(reading).toEqual({
      status: 'read',
      metrics: { post_clicks: 13, post_reactions_by_type_total: 16 },
      warnings: [FACEBOOK_RETIRED_WARNING],
    });
    expect('post_engaged_users' in (reading.status === 'read' ? reading.metrics : {})).toBe(false);
  });

  it('reads a video post reactions from the video object insights', () => {
    const clicks = { data: [postAnswer.data[0]!] };
    const video = {
      data: [
        { name: 'total_video_reactions_by_type_total', period: 'lifetime', values: [{ value: { like: 7, haha: 2 } }] },
      ],
    };
    expect(mapFacebookInsights(clicks, video)).toEqual({
      status: 'read',
      metrics: { post_clicks: 13, post_reactions_by_type_total: 9 },
      warnings: [FACEBOOK_RETIRED_WARNING],
    });
  });

  it('finds the video behind a post and treats an empty reactions object as 0 reactions', () => {
    expect(videoIdOf({ attachments: { data: [{ media_type: 'video', target: { id: '555' } }] } })).toBe('555');
    expect(videoIdOf({ attachments: { data: [{ media_type: 'photo', target: { id: '556' } }] } })).toBeUndefined();
    expect(sumByType({})).toBe(0);
    expect(sumByType(undefined)).toBeUndefined();
  });
});
