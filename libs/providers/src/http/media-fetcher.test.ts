import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMediaFetcher } from './media-fetcher.ts';

describe('createMediaFetcher', () => {
  it('refuses private and link-local addresses unless allowed (link-local never)', async () => {
    const strict = createMediaFetcher({ deadlineMs: 2000, maxBytes: 1024, allowPrivateUrls: false });
    await expect(strict('x', 'http://127.0.0.1:9/a.jpg')).rejects.toMatchObject({
      kind: 'media_invalid',
      networkCode: 'media_url_blocked',
    });
    await expect(strict('x', 'http://10.1.2.3/a.jpg')).rejects.toMatchObject({ networkCode: 'media_url_blocked' });
    const dev = createMediaFetcher({ deadlineMs: 2000, maxBytes: 1024, allowPrivateUrls: true });
    await expect(dev('linkedin', 'http://169.254.169.254/latest/meta-data')).rejects.toMatchObject({
      kind: 'media_invalid',
      network: 'linkedin',
      networkCode: 'media_url_blocked',
    });
    await expect(dev('x', 'file:///etc/passwd')).rejects.toMatchObject({ networkCode: 'media_url_invalid' });
  });

  describe('download limits (unbounded media downloads could take down the publisher)', () => {
    let server: Server;
    let base: string;
    const drips = new Set<NodeJS.Timeout>();

    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/huge.mp4') {
          // Announces 400 MB and sends a byte: the fetcher must refuse on the header, not wait for the body.
          res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(400 * 1024 * 1024) });
          res.write('x');
          return;
        }
        if (req.url === '/chunked.mp4') {
          res.writeHead(200, { 'content-type': 'video/mp4' });
          for (let i = 0; i < 64; i += 1) res.write(Buffer.alloc(16 * 1024, 1));
          res.end();
          return;
        }
        if (req.url === '/drip.jpg') {
          // A byte every 100 ms: each read is quick, so only a deadline on the whole download ends it.
          res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '100000' });
          const timer = setInterval(() => res.write('x'), 100);
          drips.add(timer);
          res.once('close', () => clearInterval(timer));
          return;
        }
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': '3' }).end('abc');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      for (const timer of drips) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('refuses a Content-Length over the limit at once', async () => {
      const fetch = createMediaFetcher({ deadlineMs: 20_000, maxBytes: 1024 * 1024, allowPrivateUrls: true });
      // media_too_large, not media_timeout: refused on the header, the body (which never comes) unread.
      await expect(fetch('x', `${base}/huge.mp4`)).rejects.toMatchObject({
        kind: 'media_invalid',
        networkCode: 'media_too_large',
      });
    });

    it('stops a body without Content-Length at the byte cap', async () => {
      const fetch = createMediaFetcher({ deadlineMs: 5000, maxBytes: 256 * 1024, allowPrivateUrls: true });
      await expect(fetch('linkedin', `${base}/chunked.mp4`)).rejects.toMatchObject({
        kind: 'media_invalid',
        networkCode: 'media_too_large',
      });
    });

    it('bounds the whole download with a deadline (a slow drip cannot hold a delivery slot)', async () => {
      const fetch = createMediaFetcher({ deadlineMs: 1500, maxBytes: 1024 * 1024, allowPrivateUrls: true });
      // The drip never ends and no read is slow: only the whole download's deadline can answer media_timeout.
      await expect(fetch('x', `${base}/drip.jpg`)).rejects.toMatchObject({
        kind: 'transient',
        networkCode: 'media_timeout',
      });
    });

    it('downloads a file within the limits', async () => {
      const fetch = createMediaFetcher({ deadlineMs: 5000, maxBytes: 1024, allowPrivateUrls: true });
      await expect(fetch('x', `${base}/ok.jpg`)).resolves.toEqual({
        bytes: Buffer.from('abc'),
        contentType: 'image/jpeg',
      });
    });
  });
});
