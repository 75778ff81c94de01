// User-supplied hosts resolve through c-ares against the configured DNS servers (here a local one),
// and the connection goes to exactly the address that was vetted, redirects included.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { boundedFetch, checkUrl, HostResolver, readBounded, safeAgents } from '../src/index.ts';
import { TestDnsServer } from './support/dns-server.ts';

describe('resolving user-supplied hosts through c-ares', () => {
  let dns: TestDnsServer;
  let resolver: HostResolver;
  let server: Server;
  let port: number;
  const seen: { host: string | undefined; url: string | undefined }[] = [];
  const strict = () => ({ allowPrivate: false, resolver });
  const dev = () => ({ allowPrivate: true, resolver });

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    dns
      .answer('media.example.test', '93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946')
      .answer('files.example.test', '127.0.0.1')
      .answer('next.example.test', '127.0.0.1')
      .answer('metadata.example.test', '169.254.169.254')
      .answer('intranet.example.test', '10.0.0.5')
      .answer('slow.example.test', '93.184.216.34')
      .holdQueriesOf('slow.example.test');
    resolver = new HostResolver({ servers: [dns.address], timeoutMs: 5000 });
    server = createServer((req, res) => {
      seen.push({ host: req.headers.host, url: req.url });
      if (req.url === '/hop') {
        res.writeHead(302, { location: `http://next.example.test:${port}/file` });
        return res.end();
      }
      if (req.url === '/to-metadata') {
        res.writeHead(302, { location: 'http://metadata.example.test/latest/meta-data' });
        return res.end();
      }
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await dns.close();
  });

  beforeEach(() => {
    seen.length = 0;
    dns.queries.clear();
  });

  it('asks the configured servers, and vets every address a name has', async () => {
    expect(await checkUrl('https://media.example.test/a.png', strict())).toEqual({
      ok: true,
      url: new URL('https://media.example.test/a.png'),
      addresses: ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    });
    expect(dns.queriesOf('media.example.test')).toBe(2);
    expect(await checkUrl('http://metadata.example.test/', dev())).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await checkUrl('http://intranet.example.test/', strict())).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await checkUrl('http://intranet.example.test/', dev())).toMatchObject({ ok: true, addresses: ['10.0.0.5'] });
    expect(await checkUrl('http://nowhere.example.test/', dev())).toMatchObject({
      ok: false,
      reason: 'unresolvable',
      message: 'the host nowhere.example.test does not resolve',
    });
  });

  it('takes IP literals as they are and localhost as loopback, without asking DNS', async () => {
    expect(await checkUrl('http://localhost/a.png', strict())).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await checkUrl('http://api.localhost/a.png', strict())).toMatchObject({ ok: false, reason: 'blocked' });
    expect(await checkUrl('http://localhost:8080/a.png', dev())).toMatchObject({
      ok: true,
      addresses: ['127.0.0.1', '::1'],
    });
    expect(await checkUrl('http://127.0.0.1:8080/a.png', dev())).toMatchObject({ ok: true, addresses: ['127.0.0.1'] });
    expect(await checkUrl('http://[::1]:8080/a.png', dev())).toMatchObject({ ok: true, addresses: ['::1'] });
    expect(dns.queries.size).toBe(0);
  });

  it('refuses a host whose answer does not come within the timeout as unresolvable', async () => {
    const impatient = new HostResolver({ servers: [dns.address], timeoutMs: 300 });
    expect(await checkUrl('http://slow.example.test/', { allowPrivate: false, resolver: impatient })).toMatchObject({
      ok: false,
      reason: 'unresolvable',
      message: 'the host slow.example.test does not resolve (no answer in time)',
    });
    expect(dns.queriesOf('slow.example.test')).toBeGreaterThanOrEqual(1);
  });

  it("connects a bounded fetch to the vetted address, resolving each hop once, with the URL's host in the Host header", async () => {
    const response = await boundedFetch(`http://files.example.test:${port}/hop`, {
      policy: dev(),
      deadlineMs: 5000,
      maxBytes: 1024,
    });
    expect((await readBounded(response.body)).toString()).toBe('ok');
    expect(response.url).toBe(`http://next.example.test:${port}/file`);
    expect(seen).toEqual([
      { host: `files.example.test:${port}`, url: '/hop' },
      { host: `next.example.test:${port}`, url: '/file' },
    ]);
    // One A and one AAAA query per hop: the connection used the checked answer, not a second lookup.
    expect([dns.queriesOf('files.example.test'), dns.queriesOf('next.example.test')]).toEqual([2, 2]);
    await expect(
      boundedFetch(`http://files.example.test:${port}/to-metadata`, {
        policy: dev(),
        deadlineMs: 5000,
        maxBytes: 1024,
      }),
    ).rejects.toMatchObject({ reason: 'blocked' });
  });

  it('vets the address the safe agents connect to through the same resolver', async () => {
    await expect(
      axios.get(`http://files.example.test:${port}/file`, { ...safeAgents(dev()), proxy: false }),
    ).resolves.toMatchObject({ data: 'ok' });
    await expect(
      axios.get(`http://files.example.test:${port}/file`, { ...safeAgents(strict()), proxy: false }),
    ).rejects.toThrow(/not allowed/);
    await expect(
      axios.get(`http://metadata.example.test:${port}/`, { ...safeAgents(dev()), proxy: false }),
    ).rejects.toThrow(/not allowed/);
    expect(seen).toEqual([{ host: `files.example.test:${port}`, url: '/file' }]);
  });
});
