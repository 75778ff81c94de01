import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { fetchMedia } from './fetch-media.ts';
import { sniffFormat } from './sniff.ts';

describe('fetchMedia (the sandbox crawler)', () => {
  const options = { allowPrivateUrls: true, timeoutMs: 2000, maxBytes: 1024 };

  it('never fetches link-local / metadata addresses, and loopback only when allowed', async () => {
    expect(await fetchMedia('http://169.254.169.254/latest/meta-data', options)).toEqual({
      ok: false,
      reason: 'blocked',
    });
    expect(await fetchMedia('http://127.0.0.1:9/x.jpg', { ...options, allowPrivateUrls: false })).toEqual({
      ok: false,
      reason: 'blocked',
    });
    expect(await fetchMedia('ftp://example.com/x.jpg', options)).toEqual({ ok: false, reason: 'blocked' });
    expect(await fetchMedia('not a url', options)).toEqual({ ok: false, reason: 'unreachable' });
    for (const host of ['[::a9fe:a9fe]', '[64:ff9b::a9fe:a9fe]', '[::ffff:0:a9fe:a9fe]', '[2002:a9fe:a9fe::]']) {
      expect(await fetchMedia(`http://${host}/x.jpg`, options)).toEqual({ ok: false, reason: 'blocked' });
    }
  });

  it('follows redirects with the same checks, reports HTTP errors and oversized files', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/redirect-private') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else if (req.url === '/big') res.writeHead(200).end(Buffer.alloc(2048));
      else if (req.url === '/ok') res.writeHead(200).end(Buffer.from([0xff, 0xd8, 0xff, 0x00]));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(await fetchMedia(`${base}/redirect-private`, options)).toEqual({ ok: false, reason: 'blocked' });
      expect(await fetchMedia(`${base}/missing`, options)).toEqual({ ok: false, reason: 'http_error', status: 404 });
      expect(await fetchMedia(`${base}/big`, options)).toEqual({ ok: false, reason: 'too_large' });
      expect(await fetchMedia(`${base}/ok`, options)).toMatchObject({ ok: true, format: 'jpeg' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('sniffs formats by magic bytes', () => {
    expect(sniffFormat(Buffer.from('89504e470d0a1a0a', 'hex'))).toBe('png');
    expect(sniffFormat(Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypqt  ')]))).toBe('mov');
    expect(sniffFormat(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP')]))).toBe('webp');
    expect(sniffFormat(Buffer.from('hello'))).toBe('unknown');
  });
});
