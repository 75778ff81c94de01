import { UsageError } from '../errors.ts';
import { resolveTargets, type AccountSummary } from './accounts-resolve.ts';

const account = (id: string, provider: string, handle: string | null): AccountSummary => ({
  id,
  provider,
  handle,
  health: 'active',
  connection_type: 'byok',
  created_at: '2026-01-01T00:00:00Z',
});

const accounts = [
  account('id-x', 'x', 'acme'),
  account('id-li', 'linkedin', 'Acme'),
  account('id-tt', 'tiktok', 'dancer'),
  account('id-fb', 'facebook', null),
];

describe('resolveTargets', () => {
  it('resolves all, networks, handles and ids, each account once, in order', () => {
    expect(resolveTargets(['all'], accounts)).toEqual(['id-x', 'id-li', 'id-tt', 'id-fb']);
    expect(resolveTargets(['tiktok', '@dancer', 'id-fb', 'TikTok'], accounts)).toEqual(['id-tt', 'id-fb']);
    expect(resolveTargets(['linkedin:@acme'], accounts)).toEqual(['id-li']);
    expect(resolveTargets(['DANCER'], accounts)).toEqual(['id-tt']);
  });

  it('refuses a handle on several networks, naming them, and names what matches nothing', () => {
    expect(() => resolveTargets(['@acme'], accounts)).toThrow(/matches 2 accounts \(x:@acme, linkedin:@Acme\)/);
    expect(() => resolveTargets(['@nobody'], accounts)).toThrow(UsageError);
    expect(() => resolveTargets(['instagram'], accounts)).toThrow(/no instagram account/);
    expect(() => resolveTargets(['all'], [])).toThrow(/no account is connected/);
    expect(() => resolveTargets([' '], accounts)).toThrow(/names no account/);
  });
});
