import { contentCapabilities } from './capabilities.ts';
import { checkContent } from './content-rules.ts';

describe('contentCapabilities', () => {
  it('gives each network its post types and limits from the rule tables', () => {
    expect(contentCapabilities('instagram', undefined)).toMatchObject({
      postTypes: ['feed', 'reel', 'story'],
      maxTextLength: 2200,
      maxMedia: 10,
    });
    expect(contentCapabilities('facebook', undefined).postTypes).toEqual(['feed', 'reel']);
    expect(contentCapabilities('facebook', undefined).postKinds.reel).toEqual({
      mediaKinds: ['video'],
      minMedia: 1,
      maxMedia: 1,
      videoSeconds: [3, 90],
    });
    expect(contentCapabilities('linkedin', undefined).postTypes).toEqual(['post', 'document']);
    expect(contentCapabilities('linkedin', undefined).postKinds.document).toEqual({
      mediaKinds: ['document'],
      minMedia: 1,
      maxMedia: 1,
      documentPages: 300,
      documentBytes: 100 * 1024 * 1024,
    });
    expect(contentCapabilities('tiktok', undefined).postTypes).toEqual(['video', 'photo', 'draft']);
    expect(contentCapabilities('tiktok', undefined).altText).toBeUndefined();
    expect(contentCapabilities('x', undefined).altText).toEqual({ maxLength: 1000, kinds: ['image'] });
    expect(contentCapabilities('instagram', undefined).postKinds.reel).toMatchObject({
      mediaKinds: ['video'],
      videoSeconds: [3, 900],
    });
    expect(contentCapabilities('x', undefined)).toMatchObject({
      postTypes: ['post'],
      maxTextLength: 280,
      maxPerKind: { image: 4, video: 1 },
    });
  });

  it('follows the account: X Premium posts are longer, a TikTok creator may cap video length', () => {
    expect(contentCapabilities('x', { subscription_type: 'Premium' }).maxTextLength).toBe(25_000);
    expect(contentCapabilities('tiktok', { tt_max_video_post_duration_sec: '60' }).maxVideoSeconds).toBe(60);
  });

  it('describes every post type the rules accept, and only those', () => {
    for (const network of ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const) {
      const capabilities = contentCapabilities(network, undefined);
      expect(Object.keys(capabilities.postKinds)).toEqual([...capabilities.postTypes]);
    }
  });
  it('announces exactly what the checks accept: the most images passes, one more does not', () => {
    for (const network of ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const) {
      const { maxPerKind } = contentCapabilities(network, undefined);
      const images = (count: number) =>
        Array.from({ length: count }, (_, i) => ({ url: `https://cdn.test/${i}.jpg`, kind: 'image' as const }));
      const rules = (count: number) =>
        checkContent(network, { text: 'hi', media: images(count), options: { privacy_level: 'SELF_ONLY' } }).map(
          (violation) => violation.rule,
        );
      expect(rules(maxPerKind.image)).not.toContain('media_count');
      expect(rules(maxPerKind.image + 1)).toContain('media_count');
    }
  });
});
