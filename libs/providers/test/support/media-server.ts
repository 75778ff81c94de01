import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';

/** Tiny but correctly typed payloads: networks sniff magic bytes, not extensions. */
export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0sandbox-jpeg'), Buffer.from([0xff, 0xd9])]);
export const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('sandbox-png')]);
export const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64, 1)]);

export interface MediaServer {
  url: (path: string) => string;
  close: () => Promise<void>;
}

/** Serves `/image.jpg`, `/image.png`, `/video.mp4`; anything else is 404 (the broken URL). */
export async function startMediaServer(): Promise<MediaServer> {
  const files: Record<string, [Buffer, string]> = {
    '/image.jpg': [JPEG, 'image/jpeg'],
    '/image.png': [PNG, 'image/png'],
    '/video.mp4': [MP4, 'video/mp4'],
  };
  const server: Server = createServer((req, res) => {
    const file = files[(req.url ?? '').split('?')[0] ?? ''];
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
