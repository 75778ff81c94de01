import { execFile } from 'node:child_process';
import sharp from 'sharp';
import type { SupportedType } from './facts.ts';

export interface Dimensions {
  width: number | null;
  height: number | null;
  durationMs: number | null;
}

export class ProbeError extends Error {
  override name = 'ProbeError';
}

export async function probeImage(path: string): Promise<Dimensions> {
  try {
    const meta = await sharp(path).metadata();
    // A GIF's metadata height is the page height once `pages` is set; otherwise the whole image.
    const height = meta.pageHeight ?? meta.height;
    return { width: meta.width ?? null, height: height ?? null, durationMs: null };
  } catch (error) {
    throw new ProbeError(`the image could not be decoded (${(error as Error).message})`);
  }
}

interface FfprobeOutput {
  streams?: { codec_type?: string; width?: number; height?: number; duration?: string; tags?: { rotate?: string }; side_data_list?: { rotation?: number }[] }[];
  format?: { duration?: string };
}

/** Video metadata through ffprobe (Debian package `ffmpeg`); rotation swaps the displayed width and height. */
export function probeVideo(path: string, timeoutMs = 30_000): Promise<Dimensions> {
  return new Promise((resolve, reject) => {
    execFile('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path], { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout) => {
      if (error !== null) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new Error('ffprobe is not installed: install the Debian package ffmpeg (apt-get install -y ffmpeg).'));
        return reject(new ProbeError('the video could not be read (ffprobe found no valid container)'));
      }
      let output: FfprobeOutput;
      try {
        output = JSON.parse(stdout) as FfprobeOutput;
      } catch {
        return reject(new ProbeError('the video could not be read'));
      }
      const video = output.streams?.find((stream) => stream.codec_type === 'video');
      if (video === undefined) return reject(new ProbeError('the file holds no video stream'));
      const rotation = Math.abs(Number(video.tags?.rotate ?? video.side_data_list?.find((data) => data.rotation !== undefined)?.rotation ?? 0)) % 180;
      const seconds = Number(output.format?.duration ?? video.duration);
      const [width, height] = rotation === 90 ? [video.height, video.width] : [video.width, video.height];
      resolve({ width: width ?? null, height: height ?? null, durationMs: Number.isFinite(seconds) ? Math.round(seconds * 1000) : null });
    });
  });
}

export const probe = (path: string, type: SupportedType): Promise<Dimensions> => (type.startsWith('video/') ? probeVideo(path) : probeImage(path));

/** Writes a JPEG of an image (transparency flattened on white), for networks that take JPEG only. */
export async function renderJpeg(source: string, target: string): Promise<void> {
  await sharp(source).flatten({ background: '#ffffff' }).jpeg({ quality: 90, mozjpeg: false }).toFile(target);
}
