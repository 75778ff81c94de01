import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

describe('Instagram publishing quota (content_publishing_limit)', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  beforeAll(async () => {
    sandbox = await startSandbox({ igQuotaTotal: 1 });
    media = await startMediaServer();
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });

  it('the post over the rolling 24 h quota fails as quota_exhausted (9/2207042)', async () => {
    const providers = testProviders(sandbox.baseUrl);
    const credentials = { accessToken: 'EAAB-byok-quota', extras: { ig_user_id: '17841400000000555' } };
    const post = () =>
      providers.instagram.publish.post({
        credentials,
        text: 'q',
        media: [{ url: media.url('/image.jpg'), kind: 'image' }],
      });
    await expect(post()).resolves.toMatchObject({ platformPostId: expect.any(String) });
    const refused = await failure(post);
    expect(refused).toMatchObject({ kind: 'quota_exhausted', retryable: true, networkCode: '9/2207042', status: 400 });
    // Deferred until the one post of the window leaves it (24 h after it was published), found to within 15 minutes.
    expect(refused.retryAfterMs).toBeGreaterThan(24 * 3_600_000 - 16 * 60_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(24 * 3_600_000);
  });

  it('profile lookup pages through every Page: the Instagram account linked to the 30th Page is found', async () => {
    const providers = testProviders(sandbox.baseUrl);
    const profile = await providers.instagram.profile.fetch({ accessToken: 'manypages_ig_user' });
    expect(profile).toMatchObject({
      platformAccountId: expect.stringMatching(/^1784\d+$/),
      extras: { ig_user_id: profile.platformAccountId },
    });
  });
});
