import type { PostEvent } from './payloads.ts';
import { deliveryBodies } from './payloads.ts';

const comment = (status: 'published' | 'failed') => ({
  status,
  platform_comment_id: status === 'published' ? '1789' : null,
  error_code: status === 'failed' ? 'duplicate' : null,
  error_message: status === 'failed' ? 'Instagram refused the first comment (duplicate): no.' : null,
});

function post(withComment: boolean): PostEvent {
  const result = (account: string, status: 'published' | 'failed') => ({
    account_id: account,
    provider: 'instagram' as const,
    status: 'published' as const,
    platform_post_id: `p_${account}`,
    platform_post_url: null,
    error_code: null,
    error_message: null,
    ...(withComment ? { first_comment: comment(status) } : {}),
  });
  return {
    id: 'job1',
    job_id: 'job1',
    status: 'published',
    account_ids: ['a1', 'a2'],
    platforms: ['instagram'],
    text: 'hello',
    scheduled_at: null,
    error_message: null,
    results: [result('a1', 'published'), result('a2', 'failed')],
  };
}

const bodies = (payload: PostEvent, format: 'envelope' | 'legacy') =>
  deliveryBodies({ type: 'post.published', occurredAt: '2026-12-01T00:00:00.000Z', payload }, 'evt', format).map(
    (item) => (JSON.parse(item.body('dlv')) as { data: Record<string, unknown> }).data,
  );

describe('webhook payloads of posts with a first comment', () => {
  it('Shape A lists each target first comment with its account; Shape B carries its own account one', () => {
    expect(bodies(post(true), 'envelope')[0]!.first_comment).toEqual([
      { account_id: 'a1', ...comment('published') },
      { account_id: 'a2', ...comment('failed') },
    ]);
    expect(bodies(post(true), 'legacy').map((data) => data.first_comment)).toEqual([
      comment('published'),
      comment('failed'),
    ]);
  });

  it("lists a thread's parts per account in Shape A, and the account's own parts in Shape B", () => {
    const part = (index: number, status: 'published' | 'failed') => ({
      index,
      status,
      platform_post_id: status === 'published' ? `t${index}` : null,
      platform_post_url: null,
      error_code: status === 'failed' ? 'duplicate' : null,
      error_message: status === 'failed' ? 'Part 2 of 2: refused.' : null,
    });
    const thread: PostEvent = {
      ...post(false),
      status: 'failed',
      account_ids: ['a1'],
      platforms: ['x'],
      results: [
        {
          ...post(false).results[0]!,
          provider: 'x',
          status: 'failed',
          parts: [part(0, 'published'), part(1, 'failed')],
        },
      ],
    };
    expect(bodies(thread, 'envelope')[0]!.parts).toEqual([
      { account_id: 'a1', ...part(0, 'published') },
      { account_id: 'a1', ...part(1, 'failed') },
    ]);
    expect(bodies(thread, 'legacy')[0]!.parts).toEqual([part(0, 'published'), part(1, 'failed')]);
  });

  it('adds nothing to a post without one', () => {
    expect(bodies(post(false), 'envelope')[0]).not.toHaveProperty('first_comment');
    expect(bodies(post(false), 'envelope')[0]).not.toHaveProperty('parts');
    for (const data of bodies(post(false), 'legacy')) expect(data).not.toHaveProperty('first_comment');
  });
});
