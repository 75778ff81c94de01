import { execFile } from 'node:child_process';
import { AppError, isAppError } from '@svc/errors';
import sharp, { type Metadata, type SharpOptions } from 'sharp';
import { assertPixelsWithin, renditionBytes } from './decode-limits.ts';
import { DecodeTimeout } from './decode-pool.ts';
import { defaultDecoder, type MediaDecoder } from './decoder.ts';
import type { SupportedType } from './facts.ts';

export interface Dimensions {
  width: number | null;
  height: number | null;
  durationMs: number | null;
  pageCount: number | null;
}

export class ProbeError extends Error {
  override name = 'ProbeError';
}

/**
 * Bytes ffprobe reads to find the streams, and the stream time it analyses (its own defaults, set
 * here so a build with other defaults cannot read a whole file); no block it allocates may pass
 * MAX_ALLOC (a crafted MP4 index asks for gigabytes at once).
 */
const FFPROBE_PROBE_BYTES = 5_000_000;
const FFPROBE_ANALYZE_US = 5_000_000;
const FFPROBE_MAX_ALLOC = 64 * 1024 * 1024;

export const tookTooLong = (what: string, timeoutMs: number) =>
  new AppError(
    'validation_error',
    `The ${what} took longer than ${Math.round(timeoutMs / 100) / 10} s to read; it is refused.`,
    {
      details: [
        { path: '/body', message: `not read within ${timeoutMs} ms`, rule: 'decode_timeout', limit: timeoutMs },
      ],
    },
  );

/** libvips failing to write the rendition: the spool's disk, not the file, is at fault. */
const WRITE_FAILURE = /unable to (open for )?write|write error/i;

/** Options of every sharp() that reads pixels: libvips' own pixel limit behind the header check, and one pass from top to bottom. */
const decodeOptions = (decoder: MediaDecoder): SharpOptions => ({
  limitInputPixels: decoder.limits.maxInputPixels,
  sequentialRead: true,
});

/**
 * The header only: no pixel is decoded. libvips' pixel limit is off for this read alone, so a
 * too-large image is refused by assertPixelsWithin naming its size rather than by a libvips error.
 */
async function header(path: string): Promise<Metadata> {
  try {
    return await sharp(path, { limitInputPixels: false, sequentialRead: true }).metadata();
  } catch (error) {
    throw new ProbeError(`the image could not be decoded (${(error as Error).message})`);
  }
}

/** Width and height from the header, refused before any decode when over the pixel limit. */
export async function probeImage(path: string, decoder: MediaDecoder = defaultDecoder()): Promise<Dimensions> {
  const meta = await decoder.pool.run(0, () => header(path));
  assertPixelsWithin(meta, decoder.limits);
  // A GIF's metadata height is the page height once `pages` is set; otherwise the whole image.
  const height = meta.pageHeight ?? meta.height;
  return { width: meta.width ?? null, height: height ?? null, durationMs: null, pageCount: null };
}

interface FfprobeOutput {
  streams?: {
    codec_type?: string;
    width?: number;
    height?: number;
    duration?: string;
    tags?: { rotate?: string };
    side_data_list?: { rotation?: number }[];
  }[];
  format?: { duration?: string };
}

function runFfprobe(path: string, signal: AbortSignal): Promise<string> {
  const args = [
    '-v',
    'error',
    '-max_alloc',
    String(FFPROBE_MAX_ALLOC),
    '-probesize',
    String(FFPROBE_PROBE_BYTES),
    '-analyzeduration',
    String(FFPROBE_ANALYZE_US),
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    path,
  ];
  return new Promise((resolve, reject) => {
    execFile('ffprobe', args, { signal, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 }, (error, stdout) => {
      if (error === null) return resolve(stdout);
      if (signal.aborted) return reject(signal.reason);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(new Error(FFPROBE_MISSING));
      reject(new ProbeError('the video could not be read (ffprobe found no valid container)'));
    });
  });
}

const FFPROBE_MISSING = 'ffprobe is not installed: install the Debian package ffmpeg (apt-get install -y ffmpeg).';

/**
 * Refuses to start a process that measures videos without ffprobe on its PATH: otherwise every video
 * it is given would fail one by one, each a 500, long after the deployment looked healthy.
 */
export function assertFfprobeInstalled(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('ffprobe', ['-version'], { timeout: 10_000, env }, (error) => {
      if (error === null) return resolve();
      reject(
        new Error(
          (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? FFPROBE_MISSING
            : `ffprobe -version failed: ${error.message}`,
        ),
      );
    });
  });
}

/** Video metadata through ffprobe (Debian package `ffmpeg`); rotation swaps the displayed width and height. */
export async function probeVideo(path: string, decoder: MediaDecoder = defaultDecoder()): Promise<Dimensions> {
  let stdout: string;
  try {
    stdout = await decoder.pool.run(0, (signal) => runFfprobe(path, signal));
  } catch (error) {
    if (error instanceof DecodeTimeout) throw tookTooLong('video', error.timeoutMs);
    throw error;
  }
  let output: FfprobeOutput;
  try {
    output = JSON.parse(stdout) as FfprobeOutput;
  } catch {
    throw new ProbeError('the video could not be read');
  }
  const video = output.streams?.find((stream) => stream.codec_type === 'video');
  if (video === undefined) throw new ProbeError('the file holds no video stream');
  const rotation =
    Math.abs(
      Number(video.tags?.rotate ?? video.side_data_list?.find((data) => data.rotation !== undefined)?.rotation ?? 0),
    ) % 180;
  const seconds = Number(output.format?.duration ?? video.duration);
  const [width, height] = rotation === 90 ? [video.height, video.width] : [video.width, video.height];
  return {
    width: width ?? null,
    height: height ?? null,
    durationMs: Number.isFinite(seconds) ? Math.round(seconds * 1000) : null,
    pageCount: null,
  };
}

export const probe = (
  path: string,
  type: SupportedType,
  decoder: MediaDecoder = defaultDecoder(),
): Promise<Dimensions> => (type.startsWith('video/') ? probeVideo(path, decoder) : probeImage(path, decoder));

/**
 * Writes a JPEG of an image's first frame (transparency flattened on white), for networks that take
 * JPEG only. It runs in the pool with the memory its header says it needs, and libvips stops it at the
 * pool's deadline. Huffman tables are not optimised: optimising holds every DCT coefficient of the
 * image in memory (about 6 bytes a pixel) for a file some 5-10% smaller.
 */
export async function renderJpeg(
  source: string,
  target: string,
  decoder: MediaDecoder = defaultDecoder(),
): Promise<void> {
  const seconds = Math.max(1, Math.ceil(decoder.pool.options.timeoutMs / 1000));
  try {
    const meta = await decoder.pool.run(0, () => header(source));
    assertPixelsWithin(meta, decoder.limits);
    await decoder.pool.run(renditionBytes(meta), () =>
      sharp(source, decodeOptions(decoder))
        .timeout({ seconds })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 90, mozjpeg: false, optimiseCoding: false })
        .toFile(target),
    );
  } catch (error) {
    if (isAppError(error) || WRITE_FAILURE.test((error as Error).message)) throw error;
    if (/timeout/i.test((error as Error).message)) throw tookTooLong('image', seconds * 1000);
    throw new AppError('validation_error', `The image could not be converted to JPEG: ${(error as Error).message}.`, {
      details: [{ path: '/body', message: (error as Error).message, rule: 'decodable' }],
    });
  }
}
