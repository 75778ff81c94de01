import {
  confirmValue,
  confirmValueMatches,
  handoffCodeExpiry,
  newConfirmNonce,
  newHandoffCode,
  openHandoff,
  sealHandoff,
} from './oauth-handoff-code.ts';

describe('hand-off codes', () => {
  const expiry = new Date('2030-01-01T00:10:00Z');

  it('carry their expiry and 256 random bits', () => {
    const code = newHandoffCode(expiry);
    expect(code).toMatch(/^[0-9a-z]+\.[A-Za-z0-9_-]{43}$/);
    expect(handoffCodeExpiry(code)).toEqual(expiry);
    expect(newHandoffCode(expiry)).not.toBe(code);
    for (const mangled of ['', 'abc', `${code}x`, code.replace('.', '-'), `A${code}`])
      expect(handoffCodeExpiry(mangled)).toBeUndefined();
  });

  it('seal a record that opens only with the same code', () => {
    const code = newHandoffCode(expiry);
    const sealed = sealHandoff(code, { org_id: 'org_1', authorize_url: 'https://network.example/auth' });
    expect(sealed).not.toContain('org_1');
    expect(openHandoff(code, sealed)).toEqual({ org_id: 'org_1', authorize_url: 'https://network.example/auth' });
    expect(openHandoff(newHandoffCode(expiry), sealed)).toBeUndefined();
    expect(openHandoff(code, `${sealed.slice(0, -2)}AA`)).toBeUndefined();
    expect(openHandoff(code, 'short')).toBeUndefined();
  });

  it('bind the confirmation value to both the code and the browser nonce', () => {
    const code = newHandoffCode(expiry);
    const nonce = newConfirmNonce();
    const value = confirmValue(code, nonce);
    expect(confirmValueMatches(code, nonce, value)).toBe(true);
    expect(confirmValueMatches(code, newConfirmNonce(), value)).toBe(false);
    expect(confirmValueMatches(newHandoffCode(expiry), nonce, value)).toBe(false);
    expect(confirmValueMatches(code, undefined, value)).toBe(false);
    expect(confirmValueMatches(code, nonce, undefined)).toBe(false);
    expect(confirmValueMatches(code, nonce, value.slice(1))).toBe(false);
  });
});
