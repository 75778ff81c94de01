import { type Credentials, type Providers } from '../src/index.ts';
import { startMediaServer, type MediaServer } from './support/media-server.ts';
import { failure, startSandbox, testProviders, type RunningSandbox } from './support/sandbox.ts';

/**
 * X and LinkedIn upload media and wait for its processing before the call that creates the post.
 * The wait inside the call is bounded by `handoffPolling`; past it the call fails
 * retryable, having reported the uploaded media as the attempt's handle, and the next attempt
 * resumes from that handle: the same files are attached, none is uploaded again. A lookup with the
 * handle recognizes the post by its media, not by its text.
 */
describe('media processing handed off between attempts (X, LinkedIn)', () => {
  let sandbox: RunningSandbox;
  let media: MediaServer;
  let providers: Providers;

  beforeAll(async () => {
    // Six status reads before a video is ready; the adapters wait for two.
    sandbox = await startSandbox({ processingPolls: 6 });
    media = await startMediaServer();
    providers = testProviders(sandbox.baseUrl, { PROVIDER_HANDOFF_POLL_MAX_ATTEMPTS: 2 });
  });
  afterAll(async () => {
    await sandbox.close();
    await media.close();
  });
  beforeEach(() => sandbox.reset());

  /** Posts until the network takes it, each attempt resuming from the handle the one before reported. */
  async function postResuming(network: 'x' | 'linkedin', credentials: Credentials, text: string) {
    const handles: string[] = [];
    const video = [{ url: media.url('/video.mp4'), kind: 'video' as const }];
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      try {
        const resume = handles.at(-1);
        const result = await providers[network].publish.post({
          credentials,
          text,
          media: video,
          onHandle: async (handle) => void handles.push(handle),
          ...(resume ? { resume } : {}),
        });
        return { result, handles, attempts: attempt };
      } catch (error) {
        expect(error).toEqual(
          expect.objectContaining({
            kind: 'transient',
            networkCode: 'media_processing',
            retryable: true,
            uncertain: false,
          }),
        );
      }
    }
    throw new Error(`${network} never took the post`);
  }

  it('X: the attempt gives up waiting, the next one attaches the same uploaded video; the lookup finds the post by its media', async () => {
    const credentials = { accessToken: 'byok-x-resume', extras: { username: 'someone' } };
    const since = new Date(Date.now() - 1000);
    const { result, handles, attempts } = await postResuming('x', credentials, 'a long video');
    expect(attempts).toBeGreaterThan(1);
    // Every attempt reported the same upload: the video was uploaded once.
    expect(new Set(handles).size).toBe(1);
    const mediaId = (JSON.parse(handles[0]!.slice('media:'.length)) as string[])[0]!;
    const [posted] = await sandbox.posts('x');
    expect(posted).toMatchObject({ id: result.platformPostId, media: [{ url: `media:${mediaId}`, kind: 'video' }] });

    // The handle identifies the post even when the text would not (and a text-only post with the
    // same words would not be taken for it).
    const find = (handle: string | undefined, text: string) =>
      providers.x.lookup.find({
        credentials,
        text,
        mediaCount: 1,
        since,
        excludeIds: [],
        ...(handle ? { handle } : {}),
      });
    expect(await find(handles[0], 'words the network rewrote')).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: result.platformPostId }),
    });
    expect(await find('media:["1999999999999999999"]', 'a long video')).toEqual({ status: 'absent' });
  });

  it('X: an expired or unknown media id in the handle is uploaded again instead of failing the post', async () => {
    const credentials = { accessToken: 'byok-x-expired', extras: { username: 'someone' } };
    const handles: string[] = [];
    await providers.x.publish.post({
      credentials,
      text: 'image',
      media: [{ url: media.url('/image.jpg'), kind: 'image' }],
      resume: 'media:["1999999999999999999"]',
      onHandle: async (handle) => void handles.push(handle),
    });
    expect(handles).toHaveLength(1);
    expect(handles[0]).not.toContain('1999999999999999999');
    expect((await sandbox.posts('x'))[0]!.media).toHaveLength(1);
  });

  it('LinkedIn: the attempt gives up waiting, the next one attaches the same uploaded video; the lookup finds the post by its media', async () => {
    const token = 'byok-li-resume';
    const profile = await providers.linkedin.profile.fetch({ accessToken: token });
    const credentials = { accessToken: token, extras: profile.extras };
    const since = new Date(Date.now() - 1000);
    const { result, handles, attempts } = await postResuming('linkedin', credentials, 'a long video');
    expect(attempts).toBeGreaterThan(1);
    expect(new Set(handles).size).toBe(1);
    const urn = (JSON.parse(handles[0]!.slice('media:'.length)) as string[])[0]!;
    expect(urn).toMatch(/^urn:li:video:/);
    const [posted] = await sandbox.posts('linkedin');
    expect(posted).toMatchObject({ id: result.platformPostId, media: [{ url: urn, kind: 'video' }] });
    const find = (handle: string, text: string) =>
      providers.linkedin.lookup.find({ credentials, text, mediaCount: 1, since, excludeIds: [], handle });
    expect(await find(handles[0]!, 'other words')).toEqual({
      status: 'found',
      result: expect.objectContaining({ platformPostId: result.platformPostId }),
    });
    expect(await find('media:["urn:li:video:C000000000000000000"]', 'a long video')).toEqual({ status: 'absent' });
  });

  it('a handle of another kind (TikTok publish_id) is not taken for media', async () => {
    const credentials = { accessToken: 'byok-x-other', extras: { username: 'someone' } };
    const posted = await providers.x.publish.post({
      credentials,
      text: 'plain words',
      media: [],
      resume: 'v_pub_file~v2-1.123',
    });
    expect(
      await providers.x.lookup.find({
        credentials,
        text: 'plain words',
        mediaCount: 0,
        since: new Date(Date.now() - 5000),
        excludeIds: [],
        handle: 'v_pub_file~v2-1.123',
      }),
    ).toEqual({ status: 'found', result: expect.objectContaining({ platformPostId: posted.platformPostId }) });
    expect(
      await failure(() => providers.x.publish.post({ credentials, text: 'plain words', media: [] })),
    ).toMatchObject({ kind: 'duplicate' });
  });
});
