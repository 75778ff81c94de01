import { Value } from '@sinclair/typebox/value';
import sharp from 'sharp';
import { mediaConfigObjectSchema, type MediaConfig } from './config.ts';
import type { DecodeLimits } from './decode-limits.ts';
import { DecodePool } from './decode-pool.ts';

/** What bounds the decodes and probes of one process: their limits and the pool they run in. */
export interface MediaDecoder {
  limits: DecodeLimits;
  pool: DecodePool;
}

type DecoderSettings = Pick<
  MediaConfig,
  | 'MEDIA_MAX_INPUT_PIXELS'
  | 'MEDIA_DECODE_CONCURRENCY'
  | 'MEDIA_DECODE_MEMORY_BYTES'
  | 'MEDIA_DECODE_QUEUE'
  | 'MEDIA_DECODE_TIMEOUT_MS'
>;

/**
 * libvips settings are process-wide: one thread per image (the pool bounds how many images run, on
 * libuv threads shared with file I/O and DNS) and no operation cache (it would keep decoded pixels).
 */
function boundSharp(): void {
  sharp.concurrency(1);
  sharp.cache(false);
}

export function decoderFromConfig(config: DecoderSettings): MediaDecoder {
  boundSharp();
  return {
    limits: { maxInputPixels: config.MEDIA_MAX_INPUT_PIXELS, memoryBytes: config.MEDIA_DECODE_MEMORY_BYTES },
    pool: new DecodePool({
      concurrency: config.MEDIA_DECODE_CONCURRENCY,
      memoryBytes: config.MEDIA_DECODE_MEMORY_BYTES,
      maxQueue: config.MEDIA_DECODE_QUEUE,
      timeoutMs: config.MEDIA_DECODE_TIMEOUT_MS,
    }),
  };
}

let fallback: MediaDecoder | undefined;

/** The decoder of callers that pass none (tools, tests): the settings' defaults, one pool per process. */
export function defaultDecoder(): MediaDecoder {
  fallback ??= decoderFromConfig(Value.Default(mediaConfigObjectSchema, {}) as MediaConfig);
  return fallback;
}
