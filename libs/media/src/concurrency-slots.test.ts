import { ConcurrencySlots } from './concurrency-slots.ts';

const slots = (total: number, perKey: number) =>
  new ConcurrencySlots({
    total,
    perKey,
    retryAfterSeconds: 5,
    work: 'uploads',
    keyName: 'The organization',
    rule: 'test',
  });

describe('ConcurrencySlots', () => {
  it('refuses past the per-key bound with 429 and Retry-After, and past the total', () => {
    const limit = slots(3, 2);
    const a = [limit.acquire('a'), limit.acquire('a')];
    expect(() => limit.acquire('a')).toThrow(
      expect.objectContaining({ code: 'rate_limited', status: 429, headers: { 'Retry-After': '5' } }),
    );
    limit.acquire('b');
    expect(() => limit.acquire('c')).toThrow(expect.objectContaining({ code: 'rate_limited' }));
    a[0]!();
    a[0]!(); // twice is once
    expect(() => limit.acquire('c')).not.toThrow();
    expect(() => limit.acquire('d')).toThrow(expect.objectContaining({ code: 'rate_limited' }));
  });

  it('hands a freed slot to the first waiter that may take it', async () => {
    const limit = slots(2, 1);
    const a = limit.acquire('a');
    const b = limit.acquire('b');
    const granted: string[] = [];
    const waitA = limit.acquireWithin('a', 60_000).then((release) => (granted.push('a'), release));
    const waitC = limit.acquireWithin('c', 60_000).then((release) => (granted.push('c'), release));
    b();
    // 'a' still holds its one slot: the free one goes to 'c'.
    (await waitC)();
    expect(granted).toEqual(['c']);
    a();
    (await waitA)();
    expect(granted).toEqual(['c', 'a']);
  });

  it('refuses a waiter whose wait is over, and gives the slot back when the work fails', async () => {
    const limit = slots(1, 1);
    await expect(
      limit.run('a', async () => {
        await expect(limit.acquireWithin('b', 0)).rejects.toMatchObject({ code: 'rate_limited' });
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(() => limit.acquire('b')).not.toThrow();
  });
});
