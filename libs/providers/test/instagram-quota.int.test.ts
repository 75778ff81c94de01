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
    const post = () => providers.instagram.publish.post({ credentials, text: 'q', media: [{ url: media.url('/image.jpg'), kind: 'image' }] });
    await expect(post()).resolves.toMatchObject({ platformPostId: expect.any(String) });
    expect(await failure(post)).toMatchObject({ kind: 'quota_exhausted', networkCode: '9/2207042', status: 400 });
  });
});
