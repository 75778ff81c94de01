import { contentCapabilities } from './capabilities.ts';
import { checkFirstComment, postFeatures } from './post-features.ts';

describe('threads and first comments per network', () => {
  it('threads on X only; a first comment everywhere but TikTok; capabilities say the same', () => {
    for (const network of ['instagram', 'facebook', 'x', 'linkedin', 'tiktok'] as const) {
      const capabilities = contentCapabilities(network, undefined);
      expect(capabilities.threads).toBe(network === 'x');
      expect(capabilities.firstComment).toBe(network !== 'tiktok');
      expect(postFeatures[network].firstComment).toBe(capabilities.firstComment);
    }
  });

  it('refuses a first comment on TikTok and one past the network limit, X counting weighted characters', () => {
    expect(checkFirstComment('tiktok', 'hi').map((problem) => problem.rule)).toEqual(['first_comment_unsupported']);
    expect(checkFirstComment('linkedin', 'a'.repeat(1250))).toEqual([]);
    expect(checkFirstComment('linkedin', 'a'.repeat(1251))).toEqual([
      expect.objectContaining({ rule: 'text_length', message: expect.stringContaining('1250 characters') }),
    ]);
    expect(checkFirstComment('instagram', '💬'.repeat(2200))).toEqual([]);
    expect(checkFirstComment('instagram', '💬'.repeat(2201)).map((problem) => problem.rule)).toEqual(['text_length']);
    // 141 emoji weigh 282: over an ordinary account's 280, within a Premium account's 25,000.
    expect(checkFirstComment('x', '😀'.repeat(141)).map((problem) => problem.rule)).toEqual(['text_length']);
    expect(checkFirstComment('x', '😀'.repeat(141), { subscription_type: 'Premium' })).toEqual([]);
  });
});
