import { composeBody, type ComposeForm } from './compose-body.ts';
import { emptyRecurrence } from './recurrence.ts';

const form = (over: Partial<ComposeForm> = {}): ComposeForm => ({
  accountIds: ['acc_x'],
  networks: ['x'],
  text: 'Hello',
  mediaIds: [],
  altText: {},
  threadParts: [],
  firstComment: '',
  when: 'now',
  wall: '',
  recurrence: emptyRecurrence(),
  timeZone: 'Europe/Paris',
  now: new Date('2030-01-01T10:00:00Z'),
  tiktokPrivacy: null,
  postTypes: {},
  ...over,
});

describe('the create body Compose sends', () => {
  it('is the accounts and the text when nothing else is chosen', () => {
    expect(composeBody(form())).toEqual({ account_ids: ['acc_x'], text: 'Hello' });
  });

  it('aligns alt texts with the media, "" for an image without one, and sends none when all are empty', () => {
    const media = { mediaIds: ['m1', 'm2', 'm3'] };
    expect(composeBody(form({ ...media, altText: { m2: ' A cat ' } })).media_alt_text).toEqual(['', 'A cat', '']);
    expect(composeBody(form({ ...media, altText: { m1: '  ' } }))).not.toHaveProperty('media_alt_text');
  });

  it('adds a first comment only when one is written', () => {
    expect(composeBody(form({ firstComment: ' Link below ' })).first_comment).toEqual({ text: 'Link below' });
    expect(composeBody(form({ firstComment: ' ' }))).not.toHaveProperty('first_comment');
  });

  it('makes a thread of the text and the added parts, carrying the media in the first part', () => {
    const body = composeBody(
      form({ mediaIds: ['m1'], altText: { m1: 'alt' }, firstComment: 'c', threadParts: ['Two'] }),
    );
    expect(body).toEqual({
      account_ids: ['acc_x'],
      thread: [{ text: 'Hello', media_ids: ['m1'] }, { text: 'Two' }],
    });
  });

  it('schedules in UTC, takes the queue, or repeats weekly, by the choice made', () => {
    expect(composeBody(form({ when: 'later', wall: '2030-01-02T09:00' })).scheduled_at).toBe(
      '2030-01-02T08:00:00.000Z',
    );
    expect(composeBody(form({ when: 'later', wall: '2029-01-02T09:00' }))).not.toHaveProperty('scheduled_at');
    expect(composeBody(form({ when: 'queue' })).queue).toBe(true);
    const repeat = composeBody(form({ when: 'repeat', recurrence: { ...emptyRecurrence(), days: ['wed'] } }));
    expect(repeat.recurrence).toEqual({ freq: 'weekly', days: ['wed'], time: '09:00', timezone: 'Europe/Paris' });
    expect(composeBody(form({ when: 'repeat' }))).not.toHaveProperty('recurrence');
  });

  it('sends per-network options only for the networks chosen', () => {
    const body = composeBody(
      form({
        networks: ['instagram', 'tiktok'],
        tiktokPrivacy: 'SELF_ONLY',
        postTypes: { instagram: 'reel', linkedin: 'post' },
      }),
    );
    expect(body.platform_options).toEqual({
      instagram: { post_type: 'reel' },
      tiktok: { privacy_level: 'SELF_ONLY' },
    });
    expect(composeBody(form({ tiktokPrivacy: 'SELF_ONLY' }))).not.toHaveProperty('platform_options');
  });
});
