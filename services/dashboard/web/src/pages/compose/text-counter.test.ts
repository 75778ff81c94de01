import { counterFor, limitsByNetwork, textLength } from './text-counter.ts';

describe('textLength', () => {
  it('counts X by weighted length: URLs 23, CJK and emoji 2', () => {
    expect(textLength('x', 'hello')).toBe(5);
    expect(textLength('x', '日本語')).toBe(6);
    expect(textLength('x', 'see https://example.com/a/very/long/path')).toBe(4 + 23);
  });

  it('counts LinkedIn in UTF-16 units and the others in code points', () => {
    expect(textLength('linkedin', '👍')).toBe(2);
    expect(textLength('instagram', '👍')).toBe(1);
    expect(textLength('facebook', 'abc')).toBe(3);
  });
});

describe('counterFor', () => {
  it('is ok, near in the last 10%, over past the limit', () => {
    expect(counterFor('x', 'a'.repeat(200), 280)).toMatchObject({ length: 200, remaining: 80, state: 'ok' });
    expect(counterFor('x', 'a'.repeat(260), 280)).toMatchObject({ remaining: 20, state: 'near' });
    expect(counterFor('x', 'a'.repeat(281), 280)).toMatchObject({ remaining: -1, state: 'over' });
    expect(counterFor('x', '日'.repeat(141), 280).state).toBe('over');
  });

  it('shows only the count while the limit is unknown', () => {
    expect(counterFor('tiktok', 'a'.repeat(5000), null)).toEqual({
      network: 'tiktok',
      length: 5000,
      limit: null,
      remaining: null,
      state: 'ok',
    });
  });
});

describe('limitsByNetwork', () => {
  it('keeps the smallest known limit of each network', () => {
    const limits = limitsByNetwork([
      { provider: 'x', limit: 25_000 },
      { provider: 'x', limit: 280 },
      { provider: 'linkedin', limit: null },
      { provider: 'tiktok', limit: null },
      { provider: 'tiktok', limit: 2200 },
    ]);
    expect([...limits]).toEqual([
      ['x', 280],
      ['linkedin', null],
      ['tiktok', 2200],
    ]);
  });
});
