import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { checkUrl, isBlockedAddress, safeAgents } from './ssrf-guard.ts';

const strict = { allowPrivate: false };
const dev = { allowPrivate: true };

describe('isBlockedAddress', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '::1', 'fc00::1', '100.64.0.1'])(
    'blocks %s unless private URLs are allowed',
    (address) => {
      expect(isBlockedAddress(address, strict)).toBe(true);
      expect(isBlockedAddress(address, dev)).toBe(false);
    },
  );

  it.each([
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    'fd00:ec2::254',
    '0.0.0.0',
    '::',
    '::ffff:169.254.169.254',
    '224.0.0.1',
  ])('always blocks %s', (address) => {
    expect(isBlockedAddress(address, strict)).toBe(true);
    expect(isBlockedAddress(address, dev)).toBe(true);
  });

  // IPv4 hidden in IPv6 forms. Each embeds 169.254.169.254 or 127.0.0.1.
  it.each([
    '::a9fe:a9fe', // IPv4-compatible
    '::7f00:1', // IPv4-compatible loopback
    '64:ff9b::a9fe:a9fe', // NAT64 (RFC 6052)
    '64:ff9b:1::a9fe:a9fe', // local-use NAT64
    '::ffff:0:a9fe:a9fe', // SIIT (RFC 6145)
    '2002:a9fe:a9fe::', // 6to4
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '2001:db8::1', // documentation
    '100::1', // discard
    'fec0::1', // deprecated site-local
    '::', // unspecified
    'ff02::1', // multicast
    '4000::1', // outside global unicast
  ])('always blocks the IPv6 form %s', (address) => {
    expect(isBlockedAddress(address, strict)).toBe(true);
    expect(isBlockedAddress(address, dev)).toBe(true);
  });

  it('blocks what it cannot parse', () => {
    expect(isBlockedAddress('not-an-ip', dev)).toBe(true);
  });

  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])(
    'admits the public address %s',
    (address) => {
      expect(isBlockedAddress(address, strict)).toBe(false);
    },
  );
});

describe('checkUrl', () => {
  it('refuses other schemes, junk, loopback and metadata', async () => {
    expect(await checkUrl('ftp://example.com/a.png', dev)).toMatchObject({ ok: false, reason: 'scheme' });
    expect(await checkUrl('not a url', dev)).toMatchObject({ ok: false, reason: 'invalid' });
    expect(await checkUrl('http://127.0.0.1/a.png', strict)).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await checkUrl('http://localhost/a.png', strict)).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await checkUrl('http://169.254.169.254/latest/meta-data', dev)).toMatchObject({
      ok: false,
      reason: 'blocked',
    });
    expect(await checkUrl('http://[::ffff:a9fe:a9fe]/', dev)).toMatchObject({ ok: false, reason: 'blocked' });
    for (const host of [
      '[::a9fe:a9fe]',
      '[64:ff9b::a9fe:a9fe]',
      '[::ffff:0:a9fe:a9fe]',
      '[2002:a9fe:a9fe::]',
      '[::7f00:1]',
    ]) {
      expect(await checkUrl(`http://${host}/`, dev)).toMatchObject({ ok: false, reason: 'blocked' });
      expect(await checkUrl(`http://${host}/`, strict)).toMatchObject({ ok: false, reason: 'blocked' });
    }
    expect(await checkUrl('http://no-such-host.invalid/a.png', dev)).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    });
    expect(await checkUrl('http://127.0.0.1:8080/a.png', dev)).toMatchObject({ ok: true });
  });
});

describe('safeAgents', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        return res.end();
      }
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses to connect to a loopback address at connect time, even through a hostname', async () => {
    await expect(axios.get(`http://localhost:${port}/`, { ...safeAgents(strict), proxy: false })).rejects.toThrow(
      /not allowed/,
    );
    await expect(axios.get(`http://localhost:${port}/`, { ...safeAgents(dev), proxy: false })).resolves.toMatchObject({
      data: 'ok',
    });
  });

  it('refuses a redirect to the metadata address', async () => {
    await expect(
      axios.get(`http://127.0.0.1:${port}/redirect`, { ...safeAgents(dev), proxy: false, maxRedirects: 5 }),
    ).rejects.toThrow(/not allowed/);
  });
});
