import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';

export const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  Buffer.from('sandbox-jpeg'),
  Buffer.from([0xff, 0xd9]),
]);
export const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('png')]);
export const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(32, 1)]);

/**
 * A local media host: `/image.jpg`, `/image.png`, `/video.mp4`; `/once/<name>.jpg` serves the JPEG to
 * the first request for that path only (a file deleted, or a signed URL expired, after one fetch);
 * anything else 404.
 */
export async function mediaHost(): Promise<{ url: (path: string) => string; close: () => Promise<void> }> {
  const files: Record<string, Buffer> = { '/image.jpg': JPEG, '/image.png': PNG, '/video.mp4': MP4 };
  const servedOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    const once = path.startsWith('/once/') && !servedOnce.has(path);
    if (once) servedOnce.add(path);
    const file = once ? JPEG : files[path];
    if (file) res.writeHead(200).end(file);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Lets status polls see a download that the sandbox started in the background. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
