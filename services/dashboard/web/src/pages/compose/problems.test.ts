import { fieldOf, groupProblems } from './problems.ts';

describe('problems shown next to the field they name', () => {
  it('places a problem by its path first', () => {
    expect(fieldOf({ path: '/text', rule: 'text_length' })).toBe('text');
    expect(fieldOf({ path: '/body/media_urls/0', rule: 'media_url' })).toBe('media');
    expect(fieldOf({ path: '/scheduled_at' })).toBe('schedule');
    expect(fieldOf({ path: '/platform_options/tiktok/privacy_level', rule: 'privacy_level' })).toBe('options');
  });

  it("places a target's problem (its path names the account) by its rule", () => {
    expect(fieldOf({ path: '/body/account_ids/0', rule: 'text_length' })).toBe('text');
    expect(fieldOf({ path: '/body/account_ids/0', rule: 'media_required' })).toBe('media');
    expect(fieldOf({ path: '/body/account_ids/0', rule: 'reel_aspect_ratio' })).toBe('media');
    expect(fieldOf({ path: '/body/account_ids/1', rule: 'privacy_level_required' })).toBe('options');
    expect(fieldOf({ path: '/body/account_ids/1', rule: 'account_unusable' })).toBe('accounts');
    expect(fieldOf({ rule: 'something_new' })).toBe('accounts');
  });

  it('places the queue, the weekly rule and the first comment next to their own fields', () => {
    expect(fieldOf({ path: '/body/queue', rule: 'queue_with_draft' })).toBe('schedule');
    expect(fieldOf({ path: '/body/recurrence/until', rule: 'until_not_future' })).toBe('schedule');
    expect(fieldOf({ path: '/body/account_ids/0', rule: 'queue_full' })).toBe('schedule');
    expect(fieldOf({ path: '/body/first_comment/text', rule: 'maxLength' })).toBe('comment');
    expect(fieldOf({ path: '/body/account_ids/0', rule: 'first_comment_unsupported' })).toBe('comment');
    expect(fieldOf({ path: '/body/media_alt_text/1', rule: 'alt_text_length' })).toBe('media');
  });

  it('groups messages by field, each once', () => {
    const message = 'X posts are limited to 280 characters.';
    expect(
      groupProblems([
        { path: '/body/account_ids/0', rule: 'text_length', message },
        { path: '/body/account_ids/1', rule: 'text_length', message },
        { path: '/body/account_ids/1', rule: 'media_required', message: 'Instagram needs media.' },
      ]),
    ).toEqual({
      accounts: [],
      text: [message],
      media: ['Instagram needs media.'],
      schedule: [],
      options: [],
      comment: [],
    });
  });
});
