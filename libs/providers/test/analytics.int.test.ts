import { analyticsFromConfig, type NetworkAnalytics, type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { failure, sandboxConfig, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

/** The analytics capabilities against the sandbox, which answers in each network's real shape. */
describe('network analytics against the sandbox', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;
  let analytics: NetworkAnalytics;

  beforeAll(async () => {
    sandbox = await startSandbox();
    media = await startMediaServer();
    providers = testProviders(sandbox.baseUrl);
    analytics = analyticsFromConfig(sandboxConfig(sandbox.baseUrl, { PROVIDER_TIMEOUT_MS: 2000 }));
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });
  beforeEach(async () => sandbox.reset());

  const graph = (path: string, params: Record<string, string>, method = 'POST') =>
    fetch(`${sandbox.baseUrl}/facebook/v25.0${path}?${new URLSearchParams(params).toString()}`, { method }).then(
      async (res) => (await res.json()) as { id: string },
    );

  /** Publishes an Instagram media of one product type straight through the Graph endpoints. */
  async function igMedia(token: string, igUser: string, params: Record<string, string>): Promise<string> {
    const container = await graph(`/${igUser}/media`, { ...params, access_token: token });
    for (let i = 0; i < 20; i += 1) {
      const status = (await graph(
        `/${container.id}`,
        { fields: 'status_code', access_token: token },
        'GET',
      )) as unknown as { status_code: string };
      if (status.status_code === 'FINISHED') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return (await graph(`/${igUser}/media_publish`, { creation_id: container.id, access_token: token })).id;
  }

  it('Instagram: asks each product type only for its metrics; stories and low reach come back partial with warnings', async () => {
    const token = 'byok-ig-analytics';
    const igUser = '17841400000000042';
    const feed = await igMedia(token, igUser, { image_url: media.url('/image.jpg') });
    const carousel1 = await graph(`/${igUser}/media`, {
      image_url: media.url('/image.jpg'),
      is_carousel_item: 'true',
      access_token: token,
    });
    const carousel2 = await graph(`/${igUser}/media`, {
      image_url: media.url('/image.jpg'),
      is_carousel_item: 'true',
      access_token: token,
    });
    const carousel = await igMedia(token, igUser, {
      media_type: 'CAROUSEL',
      children: `${carousel1.id},${carousel2.id}`,
    });
    const reel = await igMedia(token, igUser, { media_type: 'REELS', video_url: media.url('/video.mp4') });
    const story = await igMedia(token, igUser, { media_type: 'STORIES', image_url: media.url('/image.jpg') });
    const quiet = await igMedia(token, igUser, { image_url: media.url('/image.jpg') });
    for (const id of [feed, carousel, reel, story])
      await sandbox.setMetrics('instagram', id, { views: 100, reach: 60, likes: 9, comments: 3, shares: 2, saved: 1 });
    await sandbox.setMetrics('instagram', quiet, { reach: 1, likes: 2, comments: 0 });

    const { readings } = await analytics.instagram.read({
      credentials: { accessToken: token },
      platformPostIds: [feed, carousel, reel, story, quiet],
    });
    const full = {
      status: 'read',
      metrics: { views: 100, reach: 60, likes: 9, comments: 3, shares: 2, saved: 1, total_interactions: 15 },
      warnings: [],
    };
    expect(readings.get(feed)).toEqual(full);
    expect(readings.get(carousel)).toEqual(full);
    expect(readings.get(reel)).toEqual(full);
    expect(readings.get(story)).toEqual({
      status: 'read',
      metrics: { views: 100, reach: 60, shares: 2 },
      warnings: [
        expect.stringContaining('no likes, comments, saved for stories'),
        expect.stringContaining('total_interactions'),
      ],
    });
    expect(readings.get(quiet)).toEqual({
      status: 'read',
      metrics: { likes: 2, comments: 0 },
      warnings: [expect.stringContaining('not enough viewers'), expect.stringContaining('total_interactions')],
    });
  });

  it("Instagram: stops an account's batch when Graph's usage header reaches the ceiling, and says until when", async () => {
    const token = 'byok-ig-usage';
    const igUser = '17841400000000043';
    const first = await igMedia(token, igUser, { image_url: media.url('/image.jpg') });
    const second = await igMedia(token, igUser, { image_url: media.url('/image.jpg') });
    for (const id of [first, second])
      await sandbox.setMetrics('instagram', id, { views: 10, reach: 10, likes: 1, comments: 1, shares: 1, saved: 1 });
    // The sandbox advertises 200 calls an hour per token (x-app-usage call_count = calls / 2).
    for (let i = 0; i < 190; i += 1) await fetch(`${sandbox.baseUrl}/facebook/v25.0/me?access_token=${token}`);
    const before = Date.now();
    const batch = await analytics.instagram.read({
      credentials: { accessToken: token },
      platformPostIds: [first, second],
    });
    expect(batch.readings.get(first)?.status).toBe('read');
    expect(batch.readings.has(second)).toBe(false);
    expect(batch.pauseUntil).toBeGreaterThanOrEqual(before + 3_600_000);
  });

  it('Facebook: reactions summed, the retired post_engaged_users left out with a warning, video posts read from the video', async () => {
    const token = 'byok-fb-analytics';
    const pageId = (await providers.facebook.profile.fetch({ accessToken: token })).platformAccountId;
    const credentials = { accessToken: token, extras: { page_id: pageId } };
    const text = await providers.facebook.publish.post({ credentials, text: 'metrics please', media: [] });
    const video = await providers.facebook.publish.post({
      credentials,
      text: 'a video',
      media: [{ url: media.url('/video.mp4'), kind: 'video' }],
    });
    await sandbox.setMetrics('facebook', text.platformPostId, {
      post_clicks: 4,
      post_reactions_by_type_total: { like: 6, wow: 1 },
      post_engaged_users: 70,
    });
    await sandbox.setMetrics('facebook', video.platformPostId, {
      post_clicks: 1,
      post_reactions_by_type_total: { like: 2, love: 2 },
    });
    const reel = await providers.facebook.publish.post({
      credentials,
      text: 'a reel',
      media: [{ url: media.url('/reel.mp4'), kind: 'video' }],
      options: { post_type: 'reel' },
    });
    await sandbox.setMetrics('facebook', reel.platformPostId, {
      post_reactions_by_type_total: { like: 5 },
    });
    const { readings } = await analytics.facebook.read({
      credentials,
      platformPostIds: [text.platformPostId, video.platformPostId, reel.platformPostId],
    });
    const retired = expect.stringContaining('post_engaged_users is not reported');
    expect(readings.get(text.platformPostId)).toEqual({
      status: 'read',
      metrics: { post_clicks: 4, post_reactions_by_type_total: 7 },
      warnings: [retired],
    });
    expect(readings.get(video.platformPostId)).toEqual({
      status: 'read',
      metrics: { post_clicks: 1, post_reactions_by_type_total: 4 },
      warnings: [retired],
    });
    // A reel (its id is the video's) is read from the video; it has no post clicks.
    expect(readings.get(reel.platformPostId)).toEqual({
      status: 'read',
      metrics: { post_reactions_by_type_total: 5 },
      warnings: [retired, 'Facebook returned no post_clicks for this post.'],
    });
  });

  it('X: one call for many posts; a 429 is a classified rate limit with the reset time', async () => {
    const credentials = { accessToken: 'byok-x-analytics' };
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push(
        (await providers.x.publish.post({ credentials, text: `x analytics ${i} ${Math.random()}`, media: [] }))
          .platformPostId,
      );
    await sandbox.setMetrics('x', ids[0]!, {
      impression_count: 10,
      like_count: 1,
      retweet_count: 0,
      reply_count: 0,
      quote_count: 0,
      bookmark_count: 0,
    });
    const { readings } = await analytics.x.read({ credentials, platformPostIds: ids });
    expect(readings.get(ids[0]!)).toEqual({
      status: 'read',
      metrics: expect.objectContaining({ impression_count: 10, like_count: 1 }),
      warnings: [],
    });
    expect([...readings.values()].every((reading) => reading.status === 'read')).toBe(true);
    await sandbox.fault('x', 'rate_limit', 1, 90);
    const limited = await failure(() => analytics.x.read({ credentials, platformPostIds: ids }));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.retryAfterMs).toBeGreaterThan(60_000);
  });

  it('LinkedIn: organization posts in one batched statistics call, member posts per metric', async () => {
    const accessToken = 'byok-li-analytics';
    const org = { accessToken, extras: { author_urn: 'urn:li:organization:5515715' } };
    const a = await providers.linkedin.publish.post({ credentials: org, text: `org one ${Math.random()}`, media: [] });
    const b = await providers.linkedin.publish.post({ credentials: org, text: `org two ${Math.random()}`, media: [] });
    await sandbox.setMetrics('linkedin', a.platformPostId, {
      share_statistics_impression_count: 100,
      share_statistics_click_count: 4,
      share_statistics_engagement: 0.05,
    });
    const { readings } = await analytics.linkedin.read({
      credentials: org,
      platformPostIds: [a.platformPostId, b.platformPostId],
    });
    expect(readings.get(a.platformPostId)).toEqual({
      status: 'read',
      metrics: {
        share_statistics_impression_count: 100,
        share_statistics_unique_impressions_count: 0,
        share_statistics_click_count: 4,
        share_statistics_like_count: 0,
        share_statistics_comment_count: 0,
        share_statistics_share_count: 0,
      },
      warnings: [],
    });
    expect(readings.get(b.platformPostId)?.status).toBe('read');

    const profile = await providers.linkedin.profile.fetch({ accessToken });
    const member = { accessToken, extras: profile.extras as Record<string, string> };
    const personal = await providers.linkedin.publish.post({
      credentials: member,
      text: `member ${Math.random()}`,
      media: [],
    });
    await sandbox.setMetrics('linkedin', personal.platformPostId, {
      share_statistics_impression_count: 55,
      share_statistics_like_count: 5,
    });
    const memberReading = (
      await analytics.linkedin.read({ credentials: member, platformPostIds: [personal.platformPostId] })
    ).readings.get(personal.platformPostId);
    expect(memberReading).toEqual({
      status: 'read',
      metrics: expect.objectContaining({ share_statistics_impression_count: 55, share_statistics_like_count: 5 }),
      warnings: [],
    });
  });

  it('TikTok: public videos by id; a private post (publish id only) fails honestly', async () => {
    const credentials = { accessToken: 'byok-tt-analytics' };
    const video = { url: media.url('/video.mp4'), kind: 'video' as const };
    const open = await providers.tiktok.publish.post({
      credentials,
      text: 'public',
      media: [video],
      options: { privacy_level: 'PUBLIC_TO_EVERYONE' },
    });
    const hidden = await providers.tiktok.publish.post({
      credentials,
      text: 'private',
      media: [video],
      options: { privacy_level: 'SELF_ONLY' },
    });
    expect(hidden.platformPostId).toContain('~');
    await sandbox.setMetrics('tiktok', open.platformPostId, {
      view_count: 30,
      like_count: 3,
      comment_count: 1,
      share_count: 0,
    });
    const { readings } = await analytics.tiktok.read({
      credentials,
      platformPostIds: [open.platformPostId, hidden.platformPostId],
    });
    expect(readings.get(open.platformPostId)).toEqual({
      status: 'read',
      metrics: { view_count: 30, like_count: 3, comment_count: 1, share_count: 0 },
      warnings: [],
    });
    expect(readings.get(hidden.platformPostId)).toEqual({
      status: 'failed',
      message: expect.stringContaining('private or still in moderation'),
    });
  });
});
