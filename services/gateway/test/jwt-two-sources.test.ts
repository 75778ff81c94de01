import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { createJwtVerifier } from '../src/auth/jwt-verifier.ts';

// The gateway with both JWT_SECRET and JWT_JWKS_URL set: ES256 tokens from the JWKS (the dashboard
// service's keys) and HS256 tokens from the secret, each algorithm bound to its own key source.
const secret = 'a-test-secret-of-at-least-32-characters!';
const issuer = 'https://dashboard.test.local';
const audience = 'svc-api';

let server: Server;
let jwksUrl: string;
/** The published set; a test adds a key to it to rotate. */
const published: Record<string, { privateKey: KeyLike; publicKey: KeyLike; jwk: JWK }> = {};

async function addKey(kid: string, alg: 'ES256' | 'RS256' = 'ES256'): Promise<void> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  published[kid] = { privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

beforeAll(async () => {
  await addKey('ec-1');
  await addKey('rsa-1', 'RS256');
  server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: Object.values(published).map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const claims = { sub: 'user_1', org_id: 'org_1' };
const verifier = () => createJwtVerifier({ algorithm: 'HS256', secret, jwksUrl, issuer, audience });

function token(header: { alg: string; kid?: string }, configure = (jwt: SignJWT) => jwt.setIssuer(issuer)) {
  return configure(new SignJWT(claims).setProtectedHeader(header).setAudience(audience).setExpirationTime('10m'));
}

const es256 = (kid: string, configure?: (jwt: SignJWT) => SignJWT) =>
  token({ alg: 'ES256', kid }, configure).sign(published[kid]!.privateKey);
const hs256 = (key: Uint8Array, kid?: string) =>
  token(kid === undefined ? { alg: 'HS256' } : { alg: 'HS256', kid }).sign(key);

describe('a gateway given both a JWT secret and a JWKS URL', () => {
  it('accepts ES256 tokens signed by a published key', async () => {
    await expect(verifier()(await es256('ec-1'))).resolves.toEqual({ userId: 'user_1', orgId: 'org_1' });
  });

  it('accepts HS256 tokens signed with the secret', async () => {
    await expect(verifier()(await hs256(new TextEncoder().encode(secret)))).resolves.toEqual({
      userId: 'user_1',
      orgId: 'org_1',
    });
  });

  it('refuses an HS256 token keyed with a published public key (algorithm confusion)', async () => {
    const verify = verifier();
    const { publicKey, jwk } = published['ec-1']!;
    for (const keyBytes of [JSON.stringify(jwk), await exportSPKI(publicKey), jwk.x ?? '']) {
      await expect(verify(await hs256(new TextEncoder().encode(keyBytes), 'ec-1'))).rejects.toMatchObject({
        code: 'unauthorized',
        message: 'The dashboard token signature is invalid.',
      });
    }
  });

  it('refuses alg none and RS256, even signed by a published RSA key', async () => {
    const verify = verifier();
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({ ...claims, iss: issuer, aud: audience, exp: Math.floor(Date.now() / 1000) + 300 }),
    ).toString('base64url')}.`;
    await expect(verify(unsigned)).rejects.toMatchObject({ code: 'unauthorized' });
    const rs256 = await token({ alg: 'RS256', kid: 'rsa-1' }).sign(published['rsa-1']!.privateKey);
    await expect(verify(rs256)).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/algorithm/),
    });
  });

  it('refuses a wrong issuer or audience, from either source', async () => {
    const verify = verifier();
    const otherIssuer = (jwt: SignJWT) => jwt.setIssuer('https://evil.example.com');
    const otherAudience = (jwt: SignJWT) => jwt.setIssuer(issuer).setAudience('another-api');
    for (const configure of [otherIssuer, otherAudience]) {
      await expect(verify(await es256('ec-1', configure))).rejects.toMatchObject({
        code: 'unauthorized',
        message: expect.stringMatching(/not acceptable/),
      });
      await expect(
        verify(await token({ alg: 'HS256' }, configure).sign(new TextEncoder().encode(secret))),
      ).rejects.toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/not acceptable/) });
    }
  });

  it('accepts tokens of both keys while a rotation publishes two', async () => {
    await addKey('ec-2');
    const verify = verifier();
    await expect(verify(await es256('ec-2'))).resolves.toMatchObject({ orgId: 'org_1' });
    await expect(verify(await es256('ec-1'))).resolves.toMatchObject({ orgId: 'org_1' });
  });

  it('does not see a key published after its last fetch until the 30 s cooldown has passed', async () => {
    // Why the dashboard publishes a new key ahead of signing with it (services/dashboard/README.md).
    const verify = verifier();
    await expect(verify(await es256('ec-1'))).resolves.toMatchObject({ orgId: 'org_1' });
    await addKey('ec-3');
    await expect(verify(await es256('ec-3'))).rejects.toMatchObject({
      message: 'The dashboard token was signed by an unknown key.',
    });
  });
});

describe('a gateway given one key source keeps its one algorithm', () => {
  it('refuses ES256 with only a secret, and HS256 with only a JWKS', async () => {
    await expect(createJwtVerifier({ algorithm: 'HS256', secret })(await es256('ec-1'))).rejects.toMatchObject({
      message: expect.stringMatching(/algorithm/),
    });
    await expect(
      createJwtVerifier({ algorithm: 'ES256', jwksUrl })(await hs256(new TextEncoder().encode(secret))),
    ).rejects.toMatchObject({ message: expect.stringMatching(/algorithm/) });
  });
});
