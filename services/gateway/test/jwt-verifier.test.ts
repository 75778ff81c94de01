import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { createJwtVerifier } from '../src/auth/jwt-verifier.ts';

let server: Server;
let jwksUrl: string;
const keys: Record<string, { privateKey: KeyLike; jwk: JWK }> = {};

beforeAll(async () => {
  for (const [kid, alg] of [
    ['rsa-1', 'RS256'],
    ['ec-1', 'ES256'],
  ] as const) {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    keys[kid] = { privateKey: privateKey as KeyLike, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
  }
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: Object.values(keys).map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function sign(
  kid: string,
  alg: string,
  claims: Record<string, unknown> = { sub: 'u1', org_id: 'org_1' },
  configure = (jwt: SignJWT) => jwt,
) {
  return configure(new SignJWT(claims).setProtectedHeader({ alg, kid }).setExpirationTime('5m')).sign(
    keys[kid]!.privateKey,
  );
}

describe('JWT verification with keys from a JWKS URL', () => {
  it('accepts RS256 tokens signed by a published key when RS256 is pinned', async () => {
    const verify = createJwtVerifier({ algorithm: 'RS256', jwksUrl });
    await expect(verify(await sign('rsa-1', 'RS256'))).resolves.toEqual({ userId: 'u1', orgId: 'org_1' });
  });

  it('accepts ES256 when pinned, and refuses the other algorithm even with a published key', async () => {
    const verifyEs = createJwtVerifier({ algorithm: 'ES256', jwksUrl });
    await expect(verifyEs(await sign('ec-1', 'ES256'))).resolves.toMatchObject({ orgId: 'org_1' });
    await expect(verifyEs(await sign('rsa-1', 'RS256'))).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/algorithm/),
    });
  });

  it('checks issuer and audience when configured', async () => {
    const verify = createJwtVerifier({
      algorithm: 'RS256',
      jwksUrl,
      issuer: 'https://dashboard.example.com',
      audience: 'social-api',
    });
    const good = await sign('rsa-1', 'RS256', { sub: 'u1', org_id: 'org_1' }, (jwt) =>
      jwt.setIssuer('https://dashboard.example.com').setAudience('social-api'),
    );
    await expect(verify(good)).resolves.toMatchObject({ userId: 'u1' });
    const wrongIssuer = await sign('rsa-1', 'RS256', { sub: 'u1', org_id: 'org_1' }, (jwt) =>
      jwt.setIssuer('https://evil.example.com').setAudience('social-api'),
    );
    await expect(verify(wrongIssuer)).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/iss/),
    });
    const noAudience = await sign('rsa-1', 'RS256', { sub: 'u1', org_id: 'org_1' }, (jwt) =>
      jwt.setIssuer('https://dashboard.example.com'),
    );
    await expect(verify(noAudience)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('refuses a token whose key is not in the set', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const stranger = await new SignJWT({ sub: 'u', org_id: 'o' })
      .setProtectedHeader({ alg: 'RS256', kid: 'unknown' })
      .setExpirationTime('5m')
      .sign(privateKey);
    await expect(createJwtVerifier({ algorithm: 'RS256', jwksUrl })(stranger)).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/unknown key/),
    });
  });
});

describe('verified tokens are remembered', () => {
  const secret = 'a-test-secret-of-at-least-32-characters!';
  const signHs = (exp: number) =>
    new SignJWT({ sub: 'u1', org_id: 'org_1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(secret));

  afterEach(() => jest.useRealTimers());

  it('still refuses a remembered token once it has expired', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const now = Date.now();
    const verify = createJwtVerifier({ algorithm: 'HS256', secret });
    const token = await signHs(Math.floor(now / 1000) + 2);
    await expect(verify(token)).resolves.toEqual({ userId: 'u1', orgId: 'org_1' });
    await expect(verify(token)).resolves.toEqual({ userId: 'u1', orgId: 'org_1' });
    jest.setSystemTime(now + 3000);
    await expect(verify(token)).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/expired/),
    });
  });

  it('verifies a token that differs by one byte afresh', async () => {
    const verify = createJwtVerifier({ algorithm: 'HS256', secret });
    const token = await signHs(Math.floor(Date.now() / 1000) + 300);
    await expect(verify(token)).resolves.toMatchObject({ orgId: 'org_1' });
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(verify(tampered)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('reads the optional org_name display claim, and refuses one that is not a short line of text', async () => {
    const verify = createJwtVerifier({ algorithm: 'HS256', secret });
    const signNamed = (orgName: unknown) =>
      new SignJWT({ sub: 'u1', org_id: 'org_1', org_name: orgName })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
    await expect(verify(await signNamed('Acme <Studio>'))).resolves.toEqual({
      userId: 'u1',
      orgId: 'org_1',
      orgName: 'Acme <Studio>',
    });
    for (const bad of ['', 'x'.repeat(101), 'line\nbreak', 42])
      await expect(verify(await signNamed(bad))).rejects.toMatchObject({
        code: 'unauthorized',
        message: expect.stringMatching(/org_name/),
      });
  });
});
