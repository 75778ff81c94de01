import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedFetch, readBounded } from './bounded-fetch.ts';

const dev = { allowPrivate: true };

describe('boundedFetch', () => {
  let server: Server;
  let base: string;
  const timers = new Set<NodeJS.Timeout>();
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/small': (_req, res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': '4' }).end('abcd'),
    // Announces a huge body and sends it never: only an early refusal answers quickly.
    '/announced-huge': (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(400 * 1024 * 1024) });
      res.write('x');
    },
    // No Content-Length: the cap must act while streaming.
    '/chunked-big': (_req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      const piece = Buffer.alloc(64 * 1024, 1);
      for (let i = 0; i < 32; i += 1) res.write(piece);
      res.end();
    },
    // One byte every 200 ms, forever: a per-read timeout never fires, the total deadline must.
    '/drip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '1000000' });
      const timer = setInterval(() => res.write('x'), 200);
      timers.add(timer);
      res.once('close', () => clearInterval(timer));
    },
    '/redirect-metadata': (_req, res) =>
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/missing': (_req, res) => res.writeHead(404).end('no'),
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '';
      const hops = /^\/hops\/(\d+)$/.exec(path);
      if (hops) {
        const left = Number(hops[1]);
        if (left === 0) return void res.writeHead(200, { 'content-length': '2' }).end('ok');
        return void res.writeHead(302, { location: `/hops/${left - 1}` }).end();
      }
      const route = routes[path];
      if (route) route(req, res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const timer of timers) clearInterval(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('returns the body within the limits', async () => {
    const response = await boundedFetch(`${base}/small`, { policy: dev, deadlineMs: 5000, maxBytes: 10 });
    expect(response.contentLength).toBe(4);
    expect(response.headers['content-type']).toBe('image/png');
    expect((await readBounded(response.body)).toString()).toBe('abcd');
  });

  it('refuses an announced Content-Length over the limit before reading the body', async () => {
    // The body never comes: had the fetcher waited for it, the deadline would have answered (another
    // reason), so too_large says it refused on the header.
    await expect(
      boundedFetch(`${base}/announced-huge`, { policy: dev, deadlineMs: 20_000, maxBytes: 1024 * 1024 }),
    ).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('cuts a body without Content-Length at the byte cap while streaming', async () => {
    const response = await boundedFetch(`${base}/chunked-big`, {
      policy: dev,
      deadlineMs: 10_000,
      maxBytes: 256 * 1024,
    });
    expect(response.contentLength).toBeUndefined();
    await expect(readBounded(response.body)).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('ends a slow-drip body at the total deadline', async () => {
    const response = await boundedFetch(`${base}/drip`, { policy: dev, deadlineMs: 1000, maxBytes: 2_000_000 });
    await expect(readBounded(response.body)).rejects.toMatchObject({ reason: 'deadline' });
  });

  it('follows up to 5 redirects, each checked, and refuses a sixth', async () => {
    const response = await boundedFetch(`${base}/hops/5`, { policy: dev, deadlineMs: 5000, maxBytes: 10 });
    expect((await readBounded(response.body)).toString()).toBe('ok');
    await expect(boundedFetch(`${base}/hops/6`, { policy: dev, deadlineMs: 5000, maxBytes: 10 })).rejects.toMatchObject(
      { reason: 'too_many_redirects' },
    );
  });

  it('refuses a redirect to the metadata address, even when private URLs are allowed', async () => {
    await expect(
      boundedFetch(`${base}/redirect-metadata`, { policy: dev, deadlineMs: 5000, maxBytes: 10 }),
    ).rejects.toMatchObject({ reason: 'blocked' });
  });

  it('refuses loopback in strict mode, other schemes, and non-2xx answers', async () => {
    await expect(
      boundedFetch(`${base}/small`, { policy: { allowPrivate: false }, deadlineMs: 5000, maxBytes: 10 }),
    ).rejects.toMatchObject({ reason: 'blocked' });
    await expect(
      boundedFetch('file:///etc/passwd', { policy: dev, deadlineMs: 5000, maxBytes: 10 }),
    ).rejects.toMatchObject({ reason: 'scheme' });
    await expect(
      boundedFetch(`${base}/missing`, { policy: dev, deadlineMs: 5000, maxBytes: 10 }),
    ).rejects.toMatchObject({ reason: 'status', status: 404 });
  });
});
