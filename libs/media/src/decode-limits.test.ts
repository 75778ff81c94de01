import type { Metadata } from 'sharp';
import { assertPixelsWithin, pixelLimitOf, renditionBytes } from './decode-limits.ts';

const limits = { maxInputPixels: 40_000_000, memoryBytes: 256 * 1024 * 1024 };
const meta = (fields: Partial<Metadata>) =>
  ({ format: 'png', width: 100, height: 100, channels: 3, ...fields }) as Metadata;
const refusal = (fields: Partial<Metadata>) => {
  try {
    assertPixelsWithin(meta(fields), limits);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe('the pixel limit, from the header', () => {
  it('passes an image at the limit and refuses one above it with a 413 naming its size and the limit', () => {
    expect(refusal({ width: 8000, height: 5000 })).toBeUndefined();
    expect(refusal({ width: 16_000, height: 16_000 })).toMatchObject({
      code: 'payload_too_large',
      status: 413,
      message: 'The image is 16000 x 16000 pixels (256 megapixels); the limit is 40 megapixels.',
      details: [
        { path: '/body', rule: 'max_pixels', limit: 40_000_000, message: '256000000 pixels, more than 40000000' },
      ],
    });
  });

  it('counts every frame of an animated image', () => {
    expect(refusal({ format: 'gif', width: 2000, height: 2000, pages: 10 })).toBeUndefined();
    expect(refusal({ format: 'gif', width: 2000, height: 2000, pages: 11 })).toMatchObject({
      message: expect.stringContaining('2000 x 2000 pixels x 11 frames (44 megapixels)'),
      details: [expect.objectContaining({ rule: 'max_pixels' })],
    });
    expect(refusal({ format: 'webp', width: 1000, height: 1000, pageHeight: 1000, pages: 41 })).toMatchObject({
      details: [expect.objectContaining({ rule: 'max_pixels' })],
    });
  });

  it('holds images decoded whole (WebP, interlaced PNG) to what fits the memory budget', () => {
    const webp = pixelLimitOf(meta({ format: 'webp' }), limits);
    expect(webp).toBeLessThan(limits.maxInputPixels);
    expect(webp * 12).toBeLessThanOrEqual(limits.memoryBytes);
    expect(refusal({ format: 'webp', width: 6000, height: 4000 })).toMatchObject({
      message: expect.stringContaining('the limit for WebP images, which are decoded whole, is 22.4 megapixels'),
    });
    expect(refusal({ isProgressive: true, channels: 4, bitsPerSample: 16, width: 8000, height: 5000 })).toMatchObject({
      message: expect.stringContaining('the limit for interlaced PNG images, which are decoded whole, is'),
    });
    expect(pixelLimitOf(meta({ isProgressive: true, channels: 4, bitsPerSample: 16 }), limits)).toBe(
      Math.floor(limits.memoryBytes / 9),
    );
    expect(pixelLimitOf(meta({}), limits)).toBe(limits.maxInputPixels);
    expect(pixelLimitOf(meta({ format: 'jpeg' }), limits)).toBe(limits.maxInputPixels);
  });

  it('estimates a rendition only for the formats that get one', () => {
    expect(renditionBytes(meta({ format: 'jpeg', width: 4000, height: 4000 }))).toBe(0);
    expect(renditionBytes(meta({ format: 'webp', width: 1000, height: 1000 }))).toBe(12_000_000);
    expect(renditionBytes(meta({ format: 'png', width: 1000, height: 1000 }))).toBe(2_000_000);
  });
});
