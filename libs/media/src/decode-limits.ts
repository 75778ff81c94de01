import { AppError } from '@svc/errors';
import type { Metadata } from 'sharp';

export interface DecodeLimits {
  /** Pixels of an image at most, every frame counted. */
  maxInputPixels: number;
  /** What the decodes running at once may take together; one decode never needs more. */
  memoryBytes: number;
}

/**
 * Peak memory of making the JPEG rendition (sharp 0.34, libvips 8.17, sequential read, Huffman
 * tables not optimised), in bytes per pixel, measured on 10 and 40 megapixel files: a
 * non-interlaced PNG streams in strips (0.5 to 2), an interlaced one is decoded whole (its channels
 * times bytes per sample), a WebP is always decoded whole (8 to 10.4).
 */
const STREAMED_PNG_BYTES_PER_PIXEL = 2;
const WEBP_BYTES_PER_PIXEL = 12;

/** What the limits read of an image's header (sharp's metadata, or another header reader's answer). */
export type ImageHeader = Partial<
  Pick<
    Metadata,
    'width' | 'height' | 'pageHeight' | 'pages' | 'format' | 'bitsPerSample' | 'isProgressive' | 'channels'
  >
>;

const framePixels = (meta: ImageHeader) => (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);

/** Width x height x frames: what a decode of every frame would hold. */
export const totalPixels = (meta: ImageHeader) => framePixels(meta) * Math.max(1, meta.pages ?? 1);

/** Estimated peak memory of rendering the image's first frame as a JPEG. */
export function renditionBytes(meta: ImageHeader): number {
  const pixels = framePixels(meta);
  if (meta.format === 'webp') return pixels * WEBP_BYTES_PER_PIXEL;
  if (meta.format === 'png') {
    const bytesPerSample = (meta.bitsPerSample ?? 8) > 8 ? 2 : 1;
    return (
      pixels * (meta.isProgressive === true ? (meta.channels ?? 4) * bytesPerSample + 1 : STREAMED_PNG_BYTES_PER_PIXEL)
    );
  }
  return 0;
}

/** The most pixels an image of this kind may have: the setting, or less where a decode would not fit the memory budget. */
export function pixelLimitOf(meta: ImageHeader, limits: DecodeLimits): number {
  const bytes = renditionBytes(meta);
  const pixels = framePixels(meta);
  if (bytes === 0 || pixels === 0) return limits.maxInputPixels;
  return Math.min(limits.maxInputPixels, Math.floor(limits.memoryBytes / (bytes / pixels)));
}

const megapixels = (pixels: number) => `${Math.round(pixels / 100_000) / 10} megapixels`;

/** Refuses, from the header alone, an image larger than its limit (413, rule `max_pixels`). */
export function assertPixelsWithin(meta: ImageHeader, limits: DecodeLimits): void {
  const pixels = totalPixels(meta);
  const limit = pixelLimitOf(meta, limits);
  if (pixels <= limit) return;
  const frames = Math.max(1, meta.pages ?? 1);
  const size = `${meta.width} x ${meta.pageHeight ?? meta.height} pixels${frames > 1 ? ` x ${frames} frames` : ''}`;
  const why =
    limit < limits.maxInputPixels
      ? ` for ${meta.format === 'webp' ? 'WebP' : 'interlaced PNG'} images, which are decoded whole,`
      : '';
  throw new AppError(
    'payload_too_large',
    `The image is ${size} (${megapixels(pixels)}); the limit${why} is ${megapixels(limit)}.`,
    {
      details: [{ path: '/body', message: `${pixels} pixels, more than ${limit}`, rule: 'max_pixels', limit }],
    },
  );
}
