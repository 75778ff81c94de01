import { chunkPlan, chunkSpans, isVerifiedUrl } from './tiktok.publish.ts';

const MB = 1024 * 1024;

describe('TikTok FILE_UPLOAD chunk plan (media transfer guide)', () => {
  it.each([
    1,
    5 * MB - 1,
    5 * MB,
    7 * MB,
    10 * MB - 1,
    10 * MB,
    10 * MB + 1,
    25 * MB + 3,
    700 * MB,
    9_999 * MB,
    20_000 * MB,
  ])('follows every rule for %i bytes', (size) => {
    const plan = chunkPlan(size);
    const spans = chunkSpans(size, plan);
    expect(plan.total_chunk_count).toBe(Math.floor(size / plan.chunk_size));
    expect(plan.total_chunk_count).toBeGreaterThanOrEqual(1);
    expect(plan.total_chunk_count).toBeLessThanOrEqual(1000);
    if (size < 5 * MB) expect(plan).toEqual({ chunk_size: size, total_chunk_count: 1 });
    else {
      expect(plan.chunk_size).toBeGreaterThanOrEqual(5 * MB);
      expect(plan.chunk_size).toBeLessThanOrEqual(64 * MB);
    }
    // Every byte sent once, in order; all chunks but the last are exactly chunk_size; the last at most 128 MB.
    expect(spans[0]!.start).toBe(0);
    expect(spans[spans.length - 1]!.end).toBe(size - 1);
    spans.slice(1).forEach((span, index) => expect(span.start).toBe(spans[index]!.end + 1));
    spans.slice(0, -1).forEach((span) => expect(span.end - span.start + 1).toBe(plan.chunk_size));
    expect(spans[spans.length - 1]!.end - spans[spans.length - 1]!.start + 1).toBeLessThanOrEqual(128 * MB);
  });

  it('sends a 5 to 10 MB video as one chunk (it used to plan zero chunks and upload nothing)', () => {
    expect(chunkPlan(7 * MB)).toEqual({ chunk_size: 7 * MB, total_chunk_count: 1 });
  });
});

describe('isVerifiedUrl', () => {
  it('matches origins and path prefixes at a boundary only', () => {
    expect(isVerifiedUrl('https://cdn.example.com/media/a.mp4', ['https://cdn.example.com'])).toBe(true);
    expect(isVerifiedUrl('https://cdn.example.com/media/a.mp4', ['https://cdn.example.com/media'])).toBe(true);
    expect(isVerifiedUrl('https://cdn.example.com/mediax/a.mp4', ['https://cdn.example.com/media'])).toBe(false);
    expect(isVerifiedUrl('https://cdn.example.com.evil.net/a.mp4', ['https://cdn.example.com'])).toBe(false);
    expect(isVerifiedUrl('http://cdn.example.com/a.mp4', ['https://cdn.example.com'])).toBe(false);
    expect(isVerifiedUrl('https://cdn.example.com/a.mp4', [])).toBe(false);
  });
});
