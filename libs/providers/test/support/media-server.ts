import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * Tiny real files (shipped in fixtures/): networks sniff magic bytes, and the media library decodes
 * and measures what it imports. A 400x400 JPEG, a 64x64 PNG and a 3.5 s 640x360 H.264 MP4, which
 * every network's limits accept; and two vertical 540x960 (9:16) 24 fps H.264 MP4s for Facebook
 * reels: `reel.mp4` of 4 s, and `reel-long.mp4` of 91 s (one over a reel's 90), made with
 * `ffmpeg -f lavfi -i testsrc=duration=4:size=540x960:rate=24 -c:v libx264 -crf 51 -pix_fmt yuv420p`
 * (`color=c=navy:duration=91:...` for the long one, which keeps it small).
 */
const fixture = (name: string) => readFileSync(path.join(__dirname, 'fixtures', name));
export const JPEG = fixture('image.jpg');
export const PNG = fixture('image.png');
export const MP4 = fixture('video.mp4');
export const REEL_MP4 = fixture('reel.mp4');
export const LONG_REEL_MP4 = fixture('reel-long.mp4');

export interface MediaServer {
  url: (path: string) => string;
  close: () => Promise<void>;
}

/**
 * Serves `/image.jpg`, `/image.png`, `/video.mp4`, `/reel.mp4`, `/reel-long.mp4`, `/octet.png` (as application/octet-stream), and
 * `/once/<name>.jpg`: the JPEG to the first request for that path only (a file deleted, or a signed
 * URL expired, after one fetch); anything else is 404 (the broken URL).
 */
export async function startMediaServer(): Promise<MediaServer> {
  const files: Record<string, [Buffer, string]> = {
    '/image.jpg': [JPEG, 'image/jpeg'],
    '/image.png': [PNG, 'image/png'],
    '/video.mp4': [MP4, 'video/mp4'],
    '/reel.mp4': [REEL_MP4, 'video/mp4'],
    '/reel-long.mp4': [LONG_REEL_MP4, 'video/mp4'],
    // A host that labels everything as generic bytes.
    '/octet.png': [PNG, 'application/octet-stream'],
  };
  const servedOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const once = path.startsWith('/once/') && !servedOnce.has(path);
    if (once) servedOnce.add(path);
    const file = once ? files['/image.jpg'] : files[path];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file[1], 'content-length': file[0].length }).end(file[0]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
