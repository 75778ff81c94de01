import { checkContent } from './content-rules.ts';

const img = (n = 1, altText?: string) =>
  Array.from({ length: n }, (_, i) => ({
    url: `https://cdn.example.com/${i}.jpg`,
    kind: 'image' as const,
    ...(altText === undefined ? {} : { altText }),
  }));
const vid = (seconds?: number, altText?: string) => ({
  url: 'https://cdn.example.com/v.mp4',
  kind: 'video' as const,
  ...(seconds === undefined ? {} : { durationMs: seconds * 1000 }),
  ...(altText === undefined ? {} : { altText }),
});
const rules = (network: Parameters<typeof checkContent>[0], input: Parameters<typeof checkContent>[1]) =>
  checkContent(network, input).map((v) => v.rule);
const tiktok = (extra: Record<string, unknown>) => ({ privacy_level: 'SELF_ONLY', ...extra });

describe('alt text per network', () => {
  it('X: up to 1,000 characters on images; none on a video', () => {
    expect(rules('x', { text: 'x', media: img(2, 'a'.repeat(1000)) })).toEqual([]);
    expect(rules('x', { text: 'x', media: img(1, 'a'.repeat(1001)) })).toEqual(['alt_text_length']);
    expect(rules('x', { text: 'x', media: [vid(10, 'a clip')] })).toEqual(['alt_text_media_kind']);
    // An empty description is "none" for that item.
    expect(rules('x', { text: 'x', media: [vid(10, '')] })).toEqual([]);
  });
  it('LinkedIn: 4,086 characters; Instagram and Facebook: 1,000', () => {
    expect(rules('linkedin', { text: 'x', media: img(1, 'a'.repeat(4086)) })).toEqual([]);
    expect(rules('linkedin', { text: 'x', media: img(1, 'a'.repeat(4087)) })).toEqual(['alt_text_length']);
    expect(rules('instagram', { text: 'x', media: img(1, 'a'.repeat(1001)) })).toEqual(['alt_text_length']);
    expect(rules('facebook', { text: 'x', media: img(3, 'a'.repeat(1001)) })).toEqual([
      'alt_text_length',
      'alt_text_length',
      'alt_text_length',
    ]);
  });
  it('TikTok has none; Instagram reels and stories take none', () => {
    expect(rules('tiktok', { text: 'x', media: img(1, 'a cat'), options: tiktok({}) })).toEqual([
      'alt_text_unsupported',
    ]);
    expect(rules('instagram', { text: 'x', media: img(1, 'a cat'), options: { post_type: 'story' } })).toEqual([
      'alt_text_unsupported',
    ]);
  });
});

describe('post kinds', () => {
  it('refuses a kind the network does not publish', () => {
    expect(rules('instagram', { text: 'x', media: img(), options: { post_type: 'carousel' } })).toEqual([
      'post_type_unsupported',
    ]);
    expect(rules('x', { text: 'x', media: [], options: { post_type: 'reel' } })).toEqual(['post_type_unsupported']);
    expect(rules('tiktok', { text: 'x', media: [vid()], options: tiktok({ post_type: 'story' }) })).toEqual([
      'post_type_unsupported',
    ]);
  });
  it('Instagram reel: exactly one video of 3 s to 15 min', () => {
    expect(rules('instagram', { text: 'x', media: [vid(30)], options: { post_type: 'reel' } })).toEqual([]);
    expect(rules('instagram', { text: 'x', media: img(), options: { post_type: 'reel' } })).toEqual([
      'media_kind_mismatch',
    ]);
    expect(rules('instagram', { text: 'x', media: [vid(), vid()], options: { post_type: 'reel' } })).toEqual([
      'media_kind_mismatch',
    ]);
    expect(rules('instagram', { text: 'x', media: [vid(2)], options: { post_type: 'reel' } })).toEqual([
      'reel_duration',
    ]);
    expect(rules('instagram', { text: 'x', media: [vid(901)], options: { post_type: 'reel' } })).toEqual([
      'reel_duration',
    ]);
  });
  it('Facebook reel: one video, no photos, 3 to 90 s, 9:16 within 2%, at least 540x960', () => {
    const reel = (seconds: number, width: number, height: number, altText?: string) => ({
      ...vid(seconds, altText),
      width,
      height,
    });
    const facebook = (media: Parameters<typeof checkContent>[1]['media']) =>
      rules('facebook', { text: 'x', media, options: { post_type: 'reel' } });
    expect(facebook([reel(30, 1080, 1920)])).toEqual([]);
    expect(facebook([reel(3, 540, 960)])).toEqual([]);
    // Encoders round sides to multiples of 16: 1080x1916 is 9:16 within the tolerance.
    expect(facebook([reel(90, 1080, 1916)])).toEqual([]);
    expect(facebook([reel(91, 1080, 1920)])).toEqual(['reel_duration']);
    expect(facebook([reel(2.5, 1080, 1920)])).toEqual(['reel_duration']);
    expect(facebook([reel(10, 1920, 1080)])).toEqual(['reel_aspect_ratio']);
    expect(facebook([reel(10, 1080, 1350)])).toEqual(['reel_aspect_ratio']);
    expect(facebook([reel(10, 360, 640)])).toEqual(['reel_dimensions']);
    expect(facebook([reel(10, 640, 360)])).toEqual(['reel_aspect_ratio', 'reel_dimensions']);
    expect(facebook(img())).toEqual(['media_kind_mismatch']);
    expect(facebook([])).toEqual(['media_kind_mismatch']);
    expect(facebook([reel(10, 1080, 1920), ...img()])).toEqual(['media_kind_mismatch', 'media_mix']);
    expect(facebook([reel(10, 1080, 1920, 'a clip')])).toEqual(['alt_text_unsupported']);
    // Facts not measured (a plain URL at validate): the network judges the file.
    expect(facebook([vid()])).toEqual([]);
  });
  it('Instagram story: one image or one video of at most 60 s', () => {
    expect(rules('instagram', { text: 'x', media: img(), options: { post_type: 'story' } })).toEqual([]);
    expect(rules('instagram', { text: 'x', media: [vid(60)], options: { post_type: 'story' } })).toEqual([]);
    expect(rules('instagram', { text: 'x', media: [vid(61)], options: { post_type: 'story' } })).toEqual([
      'story_duration',
    ]);
    expect(rules('instagram', { text: 'x', media: img(2), options: { post_type: 'story' } })).toEqual(['media_count']);
  });
  it('TikTok: video needs a video, photo needs photos, a draft needs no privacy level', () => {
    expect(rules('tiktok', { text: 'x', media: img(), options: tiktok({ post_type: 'video' }) })).toEqual([
      'media_kind_mismatch',
    ]);
    expect(rules('tiktok', { text: 'x', media: [vid()], options: tiktok({ post_type: 'photo' }) })).toEqual([
      'media_kind_mismatch',
    ]);
    expect(rules('tiktok', { text: 'x', media: [vid()], options: { post_type: 'draft' } })).toEqual([]);
    expect(rules('tiktok', { text: 'x', media: img(3), options: { post_type: 'draft' } })).toEqual([]);
    expect(rules('tiktok', { text: 'x', media: [vid()], options: {} })).toEqual(['privacy_level_required']);
  });
});
