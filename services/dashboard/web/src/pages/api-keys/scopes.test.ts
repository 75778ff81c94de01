import { SCOPE_ORDER, toScope } from './scopes.ts';

describe('API key scopes', () => {
  it('offers full first, the scope the API gives a key created without one', () => {
    expect(SCOPE_ORDER).toEqual(['full', 'read_validate']);
  });

  it('reads a radio value back as that scope, and anything else as full', () => {
    expect(toScope('read_validate')).toBe('read_validate');
    expect(toScope('full')).toBe('full');
    expect(toScope('admin')).toBe('full');
    expect(toScope('')).toBe('full');
  });
});
