import { reelHandle, reelIdOf, reelStage } from './facebook.reel.ts';

describe('a reel attempt, as its handle and its status say', () => {
  it('tells a reel handle from a feed video id', () => {
    expect(reelIdOf(reelHandle('1234'))).toBe('1234');
    expect(reelIdOf('1234')).toBeUndefined();
    expect(reelIdOf('reel:')).toBeUndefined();
    expect(reelIdOf(undefined)).toBeUndefined();
  });

  it('reads where the video stands from the phases of GET /{video}?fields=status', () => {
    // After start, before the upload.
    expect(reelStage({ video_status: 'upload_pending', uploading_phase: { status: 'not_started' } })).toBe('empty');
    // Uploaded, never finished (META-REELS' status example): finishing it publishes it.
    expect(
      reelStage({
        video_status: 'processing',
        uploading_phase: { status: 'complete' },
        publishing_phase: { status: 'not_started' },
      }),
    ).toBe('uploaded');
    expect(
      reelStage({
        video_status: 'processing',
        uploading_phase: { status: 'complete' },
        publishing_phase: { status: 'in_progress' },
      }),
    ).toBe('publishing');
    expect(
      reelStage({
        video_status: 'ready',
        uploading_phase: { status: 'complete' },
        publishing_phase: { status: 'complete' },
      }),
    ).toBe('published');
    expect(reelStage({ video_status: 'error', uploading_phase: { status: 'complete' } })).toBe('failed');
    expect(reelStage(undefined)).toBe('empty');
  });
});
