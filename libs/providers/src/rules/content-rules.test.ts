import { checkContent } from './content-rules.ts';
import { xTextLimit, xWeightedLength } from './x-text.ts';

const img = (n = 1) =>
  Array.from({ length: n }, (_, i) => ({ url: `https://cdn.example.com/${i}.jpg`, kind: 'image' as const }));
const vid = { url: 'https://cdn.example.com/v.mp4', kind: 'video' as const };
const rules = (network: Parameters<typeof checkContent>[0], input: Parameters<typeof checkContent>[1]) =>
  checkContent(network, input).map((v) => v.rule);

describe('xWeightedLength (twitter-text v3)', () => {
  it('counts Latin as 1, CJK and emoji as 2, URLs as 23', () => {
    expect(xWeightedLength('hello')).toBe(5);
    expect(xWeightedLength('日本語')).toBe(6);
    expect(xWeightedLength('👍🏽')).toBe(2);
    expect(xWeightedLength('👨‍👩‍👧‍👦 ok')).toBe(5);
    expect(xWeightedLength('see https://example.com/a/very/long/path?with=query')).toBe(4 + 23);
    expect(xWeightedLength('e\u0301')).toBe(1);
  });

  it('counts scheme-less domains as URLs (23) and leaves trailing punctuation out of them, as twitter-text does', () => {
    expect(xWeightedLength('read example.com')).toBe(5 + 23);
    expect(xWeightedLength('read example.com.')).toBe(5 + 23 + 1);
    expect(xWeightedLength('(see https://example.com/a).')).toBe(5 + 23 + 2);
  });
});

describe('xTextLimit', () => {
  it('is 280 for standard accounts and 25,000 for every X Premium tier (user field subscription_type)', () => {
    expect(xTextLimit(undefined)).toBe(280);
    expect(xTextLimit({ subscription_type: 'None' })).toBe(280);
    expect(xTextLimit({ subscription_type: 'Basic' })).toBe(25_000);
    expect(xTextLimit({ subscription_type: 'PremiumPlus' })).toBe(25_000);
    // No tier in the profile: the deployment's default recorded at connect; nothing at all: 280.
    expect(xTextLimit({ text_limit: '4000' })).toBe(4000);
    expect(xTextLimit({ subscription_type: 'None', text_limit: '4000' })).toBe(280);
    expect(xTextLimit({})).toBe(280);
  });
});

describe('checkContent', () => {
  it('X: 280 weighted characters', () => {
    expect(rules('x', { text: 'a'.repeat(280), media: [] })).toEqual([]);
    expect(rules('x', { text: 'a'.repeat(281), media: [] })).toEqual(['text_length']);
    expect(rules('x', { text: '日'.repeat(141), media: [] })).toEqual(['text_length']);
    // 250 letters and 3 bare domains: 250 + 3 * 24 = 322 weighted, over 280 although under 280 "characters" of URL.
    expect(rules('x', { text: `${'a'.repeat(250)} a.co b.co c.co`, media: [] })).toEqual(['text_length']);
    expect(rules('x', { text: 'a'.repeat(1000), media: [], account: { subscription_type: 'Premium' } })).toEqual([]);
    expect(rules('x', { text: 'a'.repeat(1000), media: [], account: { subscription_type: 'None' } })).toEqual([
      'text_length',
    ]);
    expect(rules('x', { text: '', media: [] })).toEqual(['empty']);
    expect(rules('x', { text: 'x', media: img(5) })).toEqual(['media_count']);
    expect(rules('x', { text: 'x', media: [...img(1), vid] })).toEqual(['media_mix']);
  });

  it('Instagram and TikTok refuse text-only posts', () => {
    expect(rules('instagram', { text: 'hi', media: [] })).toEqual(['media_required']);
    expect(rules('tiktok', { text: 'hi', media: [], options: { privacy_level: 'SELF_ONLY' } })).toEqual([
      'media_required',
    ]);
    expect(rules('facebook', { text: 'hi', media: [] })).toEqual([]);
    expect(rules('linkedin', { text: 'hi', media: [] })).toEqual([]);
  });

  it('Instagram: 2,200 characters, 30 hashtags, carousel of at most 10', () => {
    expect(rules('instagram', { text: 'a'.repeat(2201), media: img() })).toEqual(['text_length']);
    expect(
      rules('instagram', { text: Array.from({ length: 31 }, (_, i) => `#t${i}`).join(' '), media: img() }),
    ).toEqual(['hashtags']);
    expect(rules('instagram', { text: 'x', media: img(11) })).toEqual(['media_count']);
    expect(rules('instagram', { text: 'x', media: [...img(2), vid] })).toEqual([]);
  });

  it('TikTok: privacy_level required and valid; one video or up to 35 photos', () => {
    expect(rules('tiktok', { text: 'x', media: [vid] })).toEqual(['privacy_level_required']);
    expect(rules('tiktok', { text: 'x', media: [vid], options: { privacy_level: 'EVERYONE' } })).toEqual([
      'privacy_level',
    ]);
    expect(rules('tiktok', { text: 'x', media: [vid], options: { privacy_level: 'SELF_ONLY' } })).toEqual([]);
    expect(rules('tiktok', { text: 'x', media: img(36), options: { privacy_level: 'SELF_ONLY' } })).toEqual([
      'media_count',
    ]);
    expect(rules('tiktok', { text: 'x', media: [vid, vid], options: { privacy_level: 'SELF_ONLY' } })).toEqual([
      'media_count',
    ]);
    expect(rules('tiktok', { text: 'x'.repeat(2201), media: [vid], options: { privacy_level: 'SELF_ONLY' } })).toEqual([
      'text_length',
    ]);
  });

  it('TikTok: what creator_info said at connect (offered privacy levels, interactions turned off, longest video)', () => {
    const account = {
      tt_privacy_level_options: 'FOLLOWER_OF_CREATOR,SELF_ONLY',
      tt_comment_disabled: 'true',
      tt_duet_disabled: 'false',
      tt_stitch_disabled: 'true',
      tt_max_video_post_duration_sec: '60',
    };
    const long = { ...vid, durationMs: 61_000 };
    expect(
      rules('tiktok', { text: 'x', media: [vid], options: { privacy_level: 'PUBLIC_TO_EVERYONE' }, account }),
    ).toEqual(['privacy_level_option_mismatch']);
    expect(
      rules('tiktok', {
        text: 'x',
        media: [vid],
        options: { privacy_level: 'SELF_ONLY', disable_comment: false, disable_stitch: false, disable_duet: false },
        account,
      }),
    ).toEqual(['comment_disabled', 'stitch_disabled']);
    expect(rules('tiktok', { text: 'x', media: [long], options: { privacy_level: 'SELF_ONLY' }, account })).toEqual([
      'video_duration',
    ]);
    // Left unset, the switches are turned off for the creator: nothing to refuse.
    expect(
      rules('tiktok', {
        text: 'x',
        media: [{ ...vid, durationMs: 59_000 }],
        options: { privacy_level: 'FOLLOWER_OF_CREATOR' },
        account,
      }),
    ).toEqual([]);
  });

  it('LinkedIn: 3,000 characters, up to 20 images, one video', () => {
    expect(rules('linkedin', { text: 'a'.repeat(3001), media: [] })).toEqual(['text_length']);
    expect(rules('linkedin', { text: 'x', media: img(21) })).toEqual(['media_count']);
    expect(rules('linkedin', { text: 'x', media: [vid, vid] })).toEqual(['media_count']);
  });

  it('Facebook: one video, not mixed with photos; media URLs must be http(s)', () => {
    expect(rules('facebook', { text: 'x', media: [vid, ...img(1)] })).toEqual(['media_mix']);
    expect(rules('facebook', { text: 'x', media: [{ url: 'file:///etc/passwd', kind: 'image' }] })).toEqual([
      'media_url',
    ]);
  });
});

describe('documents (PDF)', () => {
  const pdf = (pageCount = 3) => ({ url: 'https://cdn.example.com/deck.pdf', kind: 'document' as const, pageCount });
  const asDocument = (options: Record<string, unknown> = {}) => ({ post_type: 'document', title: 'Deck', ...options });

  it('LinkedIn document: exactly one PDF with a title; no other media, at most 300 pages', () => {
    expect(rules('linkedin', { text: '', media: [pdf()], options: asDocument() })).toEqual([]);
    expect(rules('linkedin', { text: 'x', media: [pdf()], options: asDocument({ title: ' ' }) })).toEqual([
      'document_title',
    ]);
    expect(rules('linkedin', { text: 'x', media: [pdf(), ...img()], options: asDocument() })).toEqual([
      'media_kind_mismatch',
    ]);
    expect(rules('linkedin', { text: 'x', media: img(), options: asDocument() })).toEqual(['media_kind_mismatch']);
    expect(rules('linkedin', { text: 'x', media: [], options: asDocument() })).toEqual(['media_kind_mismatch']);
    expect(rules('linkedin', { text: 'x', media: [pdf(301)], options: asDocument() })).toEqual(['max_pages']);
    expect(rules('linkedin', { text: 'x', media: [{ ...pdf(), altText: 'a deck' }], options: asDocument() })).toEqual([
      'alt_text_media_kind',
    ]);
  });

  it('a PDF in a LinkedIn post without post_type document is refused, naming the kind to use', () => {
    expect(rules('linkedin', { text: 'x', media: [pdf()] })).toEqual(['media_kind_mismatch']);
  });

  it('LinkedIn multi-image: 2 to 20 images pass, 21 do not', () => {
    expect(rules('linkedin', { text: 'x', media: img(2) })).toEqual([]);
    expect(rules('linkedin', { text: 'x', media: img(20) })).toEqual([]);
    expect(rules('linkedin', { text: 'x', media: img(21) })).toEqual(['media_count']);
  });

  it.each([['x'], ['facebook'], ['instagram'], ['tiktok']] as const)(
    '%s refuses a document (document_unsupported)',
    (network) => {
      expect(rules(network, { text: 'x', media: [pdf()], options: { privacy_level: 'PUBLIC_TO_EVERYONE' } })).toContain(
        'document_unsupported',
      );
    },
  );
});
