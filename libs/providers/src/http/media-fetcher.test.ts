import { createMediaFetcher } from './media-fetcher.ts';

describe('createMediaFetcher', () => {
  it('refuses private and link-local addresses unless allowed (link-local never)', async () => {
    const strict = createMediaFetcher({ timeoutMs: 500, maxBytes: 1024, allowPrivateUrls: false });
    await expect(strict('x', 'http://127.0.0.1:9/a.jpg')).rejects.toMatchObject({ kind: 'media_invalid', networkCode: 'media_url_blocked' });
    await expect(strict('x', 'http://10.1.2.3/a.jpg')).rejects.toMatchObject({ networkCode: 'media_url_blocked' });
    const dev = createMediaFetcher({ timeoutMs: 500, maxBytes: 1024, allowPrivateUrls: true });
    await expect(dev('linkedin', 'http://169.254.169.254/latest/meta-data')).rejects.toMatchObject({ kind: 'media_invalid', network: 'linkedin', networkCode: 'media_url_blocked' });
    await expect(dev('x', 'file:///etc/passwd')).rejects.toMatchObject({ networkCode: 'media_url_invalid' });
  });
});
