import { assertSafeInput, MAX_INPUT_DEPTH } from './safe-input.ts';

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

describe('assertSafeInput', () => {
  it('accepts ordinary bodies and queries', () => {
    expect(() =>
      assertSafeInput('body', {
        text: 'hello',
        account_ids: ['a'],
        provider_options: { tiktok: { privacy_level: 'SELF_ONLY' } },
      }),
    ).not.toThrow();
    expect(() => assertSafeInput('query', { q: 'a b', limit: '10' })).not.toThrow();
    expect(() => assertSafeInput('body', nested(MAX_INPUT_DEPTH - 1))).not.toThrow();
  });

  it('refuses 6,000 levels of nesting without overflowing', () => {
    expect(() => assertSafeInput('body', { provider_options: nested(6000) })).toThrow(
      expect.objectContaining({
        code: 'validation_error',
        details: [expect.objectContaining({ message: `nests deeper than ${MAX_INPUT_DEPTH} levels` })],
      }),
    );
  });

  it('refuses NUL characters in values and keys, naming where', () => {
    expect(() => assertSafeInput('query', { q: 'a\u0000b' })).toThrow(
      expect.objectContaining({
        details: [{ path: '/query/q', message: 'must not contain NUL (\\u0000) characters' }],
      }),
    );
    expect(() => assertSafeInput('body', { provider_options: { ['x\u0000']: 1 } })).toThrow(
      expect.objectContaining({ code: 'validation_error' }),
    );
    expect(() => assertSafeInput('body', { account_ids: ['ok', 'b\u0000'] })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ path: '/body/account_ids/1' })] }),
    );
  });
});
