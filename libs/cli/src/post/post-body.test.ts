import { UsageError } from '../errors.ts';
import { altTextsInApiOrder, parseAt, parsePostTypes, postBody, splitList } from './post-body.ts';

describe('parseAt', () => {
  it('reads a time with its zone as the same instant in UTC', () => {
    expect(parseAt('2026-12-24T09:00+01:00')).toBe('2026-12-24T08:00:00.000Z');
    expect(parseAt('2026-12-24T08:00:30Z')).toBe('2026-12-24T08:00:30.000Z');
    expect(parseAt('2026-12-24T09:00:00.5-0500')).toBe('2026-12-24T14:00:00.500Z');
  });

  it.each(['tomorrow', '2026-12-24', '2026-12-24T09:00', '2026-13-40T09:00Z', ''])('refuses %j', (value) => {
    expect(() => parseAt(value)).toThrow(UsageError);
  });
});

describe('splitList', () => {
  it('splits repeated and comma-separated values, dropping blanks', () => {
    expect(splitList(['a,b', ' c ', ',,d'])).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('postBody', () => {
  const base = {
    accountIds: ['a1'],
    text: 'hi',
    mediaIds: [],
    mediaUrls: [],
    scheduledAt: undefined,
    tiktokPrivacy: 'SELF_ONLY',
  };

  it('sends only what was given', () => {
    expect(postBody({ ...base, providers: ['x'] })).toEqual({ account_ids: ['a1'], text: 'hi' });
  });

  it("adds TikTok's privacy level when a TikTok account is a target, and media and schedule", () => {
    expect(
      postBody({
        ...base,
        providers: ['x', 'tiktok'],
        mediaIds: ['med_1'],
        mediaUrls: ['https://example.com/a.jpg'],
        scheduledAt: '2026-12-24T08:00:00.000Z',
      }),
    ).toEqual({
      account_ids: ['a1'],
      text: 'hi',
      media_ids: ['med_1'],
      media_urls: ['https://example.com/a.jpg'],
      scheduled_at: '2026-12-24T08:00:00.000Z',
      platform_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
    });
  });

  it('puts --alt in the API order (files first, then URLs) and sends each --post-type with TikTok privacy', () => {
    const alts = altTextsInApiOrder(['https://example.com/a.jpg', './b.jpg'], ['remote', 'local']);
    expect(alts).toEqual(['local', 'remote']);
    expect(() => altTextsInApiOrder(['./b.jpg'], ['one', 'two'])).toThrow(UsageError);
    expect(
      postBody({
        ...base,
        providers: ['instagram', 'tiktok'],
        mediaIds: ['med_1'],
        altTexts: ['local'],
        postTypes: parsePostTypes(['instagram=reel', 'tiktok=draft']),
      }),
    ).toEqual({
      account_ids: ['a1'],
      text: 'hi',
      media_ids: ['med_1'],
      media_alt_text: ['local'],
      platform_options: {
        instagram: { post_type: 'reel' },
        tiktok: { post_type: 'draft', privacy_level: 'SELF_ONLY' },
      },
    });
    expect(() => parsePostTypes(['reel'])).toThrow(UsageError);
  });
});
