import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';

/** Real media made in the test: sharp for images, ffmpeg (Debian package) for video. */
export const image = (format: 'png' | 'jpeg' | 'webp' | 'gif', width = 64, height = 48): Promise<Buffer> => {
  const base = sharp({ create: { width, height, channels: 4, background: { r: 200, g: 40, b: 40, alpha: 0.6 } } });
  return base[format]().toBuffer();
};

/** An H.264 MP4 of `seconds` at `width`x`height`; `noisy` adds frame noise so the bitrate (and size) is real. */
export async function video(seconds = 1, width = 320, height = 240, bitrate = '200k', noisy = false): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'media-fixture-'));
  const file = path.join(dir, 'clip.mp4');
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        'ffmpeg',
        [
          '-v',
          'error',
          '-f',
          'lavfi',
          '-i',
          `testsrc=duration=${seconds}:size=${width}x${height}:rate=25`,
          ...(noisy
            ? ['-vf', 'noise=alls=100:allf=t+u', '-minrate', bitrate, '-maxrate', bitrate, '-bufsize', '1M']
            : []),
          '-c:v',
          'libx264',
          '-b:v',
          bitrate,
          '-pix_fmt',
          'yuv420p',
          '-movflags',
          '+faststart',
          file,
        ],
        { timeout: 120_000 },
        (error) => {
          if (error === null) return resolve();
          if ((error as NodeJS.ErrnoException).code === 'ENOENT')
            return reject(new Error('ffmpeg is missing: install the Debian package ffmpeg (scripts/test does).'));
          reject(error);
        },
      );
    });
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Random pixels: they do not compress, so the file is about as large as asked. */
export const noise = (width: number, height: number, format: 'png' | 'jpeg'): Promise<Buffer> => {
  const pixels = sharp(
    Buffer.alloc(width * height * 3).map(() => Math.floor(Math.random() * 256)),
    { raw: { width, height, channels: 3 } },
  );
  return pixels[format](format === 'jpeg' ? { quality: 100 } : {}).toBuffer();
};

/** The format sharp decodes a buffer as (`jpeg`, `png`...). */
export const formatOf = async (bytes: Buffer): Promise<string | undefined> => (await sharp(bytes).metadata()).format;

/** A PDF of `pages` blank pages, made with pdf-lib (no binary fixtures). */
export async function pdf(pages: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  for (let page = 0; page < pages; page += 1) document.addPage([200, 200]);
  return Buffer.from(await document.save({ useObjectStreams: false }));
}

/** A PDF whose trailer names an encryption dictionary, as a password-protected PDF's does. */
export async function encryptedPdf(): Promise<Buffer> {
  const text = (await pdf(1)).toString('latin1');
  return Buffer.from(
    text.replace(/trailer\s*<</, (match) => `${match}\n/Encrypt 1 0 R`),
    'latin1',
  );
}
