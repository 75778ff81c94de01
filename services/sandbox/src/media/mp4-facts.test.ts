import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mp4Facts } from './mp4-facts.ts';

const fixture = (name: string) =>
  readFileSync(path.join(__dirname, '../../../../libs/providers/test/support/fixtures', name));

describe('mp4Facts', () => {
  it('reads the length and the displayed size from the movie and track headers', () => {
    expect(mp4Facts(fixture('reel.mp4'))).toEqual({ durationMs: 4000, width: 540, height: 960 });
    expect(mp4Facts(fixture('reel-long.mp4'))).toEqual({ durationMs: 91_000, width: 540, height: 960 });
    expect(mp4Facts(fixture('video.mp4'))).toEqual({ durationMs: 3500, width: 640, height: 360 });
  });

  it('answers undefined for what holds no movie header: an image, a cut file', () => {
    expect(mp4Facts(fixture('image.jpg'))).toBeUndefined();
    expect(mp4Facts(fixture('reel.mp4').subarray(0, 64))).toBeUndefined();
  });
});
