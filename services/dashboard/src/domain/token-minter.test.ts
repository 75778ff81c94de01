import { generateKeyPair, jwtVerify, type KeyLike } from 'jose';
import { JWT_AUDIENCE, orgNameClaim, TokenMinter } from './token-minter.ts';

describe('orgNameClaim', () => {
  it('keeps a name the gateway accepts as it is', () => {
    expect(orgNameClaim('Journey Inc')).toBe('Journey Inc');
    expect(orgNameClaim('Ünïcode & <Co> "quoted"')).toBe('Ünïcode & <Co> "quoted"');
  });

  it('turns control characters into spaces and trims the ends', () => {
    expect(orgNameClaim(' Acme\tLabs\n')).toBe('Acme Labs');
    expect(orgNameClaim('a\u0000b\u007fc')).toBe('a b c');
  });

  it('cuts a name past 100 characters to 99 and an ellipsis, counting code points', () => {
    const long = 'x'.repeat(120);
    expect(orgNameClaim(long)).toBe(`${'x'.repeat(99)}…`);
    expect([...orgNameClaim(long)!]).toHaveLength(100);
    const emoji = '😀'.repeat(100);
    expect(orgNameClaim(emoji)).toBe(emoji);
    expect([...orgNameClaim(`${emoji}😀`)!]).toHaveLength(100);
  });

  it('gives no claim for a missing or blank name', () => {
    expect(orgNameClaim(null)).toBeUndefined();
    expect(orgNameClaim(undefined)).toBeUndefined();
    expect(orgNameClaim(' \n\t ')).toBeUndefined();
  });
});

describe('TokenMinter', () => {
  let privateKey: KeyLike;
  let publicKey: KeyLike;
  beforeAll(async () => {
    ({ privateKey, publicKey } = await generateKeyPair('ES256'));
  });

  function minter(names: Record<string, string | null>, clock: { now: number }) {
    const lookups: string[] = [];
    const instance = new TokenMinter({
      keys: { active: () => Promise.resolve({ kid: 'k1', privateKey }) },
      issuer: 'https://dashboard.test',
      ttlSeconds: 900,
      orgName: (orgId) => {
        lookups.push(orgId);
        return Promise.resolve(names[orgId] ?? null);
      },
      now: () => clock.now,
    });
    return { instance, lookups };
  }

  const verify = async (token: string, now: number) =>
    (
      await jwtVerify(token, publicKey, {
        issuer: 'https://dashboard.test',
        audience: JWT_AUDIENCE,
        currentDate: new Date(now),
      })
    ).payload;

  it("carries the organization's name as org_name beside sub and org_id", async () => {
    const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
    const { instance } = minter({ org_a: 'Journey Inc' }, clock);
    const claims = await verify(await instance.tokenFor('usr_1', 'org_a'), clock.now);
    expect(claims).toMatchObject({ sub: 'usr_1', org_id: 'org_a', org_name: 'Journey Inc' });
    expect(claims.exp! - claims.iat!).toBe(900);
  });

  it('leaves org_name out when the organization has no usable name', async () => {
    const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
    const { instance } = minter({ org_a: '\n' }, clock);
    const claims = await verify(await instance.tokenFor('usr_1', 'org_a'), clock.now);
    expect(claims.org_id).toBe('org_a');
    expect(claims).not.toHaveProperty('org_name');
  });

  it('reads the name only when it mints: a cached token is reused until a minute before it expires', async () => {
    const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
    const { instance, lookups } = minter({ org_a: 'A', org_b: 'B' }, clock);
    const first = await instance.tokenFor('usr_1', 'org_a');
    clock.now += 13 * 60_000;
    expect(await instance.tokenFor('usr_1', 'org_a')).toBe(first);
    expect(lookups).toEqual(['org_a']);
    const other = await verify(await instance.tokenFor('usr_1', 'org_b'), clock.now);
    expect(other.org_name).toBe('B');
    clock.now += 60_000;
    const renewed = await instance.tokenFor('usr_1', 'org_a');
    expect(renewed).not.toBe(first);
    expect(lookups).toEqual(['org_a', 'org_b', 'org_a']);
  });

  it('mints afresh after forget', async () => {
    const clock = { now: Date.parse('2026-12-01T10:00:00Z') };
    const { instance, lookups } = minter({ org_a: 'A' }, clock);
    await instance.tokenFor('usr_1', 'org_a');
    await instance.tokenFor('usr_2', 'org_a');
    instance.forget('usr_1');
    await instance.tokenFor('usr_1', 'org_a');
    await instance.tokenFor('usr_2', 'org_a');
    expect(lookups).toEqual(['org_a', 'org_a', 'org_a']);
  });
});
