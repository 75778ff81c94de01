import { Readable } from 'node:stream';
import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError, isProviderError } from '../errors/provider-error.ts';
import { type ByteSpan, type MediaInput, type Network } from '../types.ts';

/** How upload requests are timed and retried (PROVIDER_UPLOAD_* settings). */
export interface UploadOptions {
  /** The budget of a request without a body (PROVIDER_TIMEOUT_MS); an upload adds time per byte. */
  baseTimeoutMs: number;
  /** The slowest sustained rate accepted toward a network: a 10 MB chunk at 256 KB/s gets 40 s more. */
  minBytesPerSecond: number;
  /** Tries of one upload step (a chunk, a part) on a timeout or a transient failure, before the delivery fails as retryable. */
  stepAttempts: number;
}

/** A request carrying `bytes` may take the base budget plus the time those bytes need at the slowest accepted rate. */
export const uploadTimeoutMs = (options: UploadOptions, bytes: number) =>
  options.baseTimeoutMs + Math.ceil((bytes / options.minBytesPerSecond) * 1000);

/**
 * Runs one idempotent upload step (a chunk at an offset, a segment index, a part URL), retrying that
 * step alone on a transient failure: a timed-out 10 MB chunk is sent again, not a whole new post.
 */
export async function uploadStep<T>(
  options: UploadOptions,
  bytes: number,
  send: (timeoutMs: number) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send(uploadTimeoutMs(options, bytes));
    } catch (error) {
      if (!isProviderError(error) || error.kind !== 'transient' || attempt >= options.stepAttempts) throw error;
    }
  }
}

/** The bytes of one media file, read by span: from storage (library media) or from a bounded download (plain URLs). */
export interface ByteReader {
  size: number;
  /** The sniffed type for library media; the server's claim for plain URLs. */
  contentType: string;
  /** A fresh stream of `span` (inclusive) for each call, so a retried step re-reads its bytes. */
  read(span: ByteSpan): Promise<Readable>;
}

export async function byteReaderOf(deps: AdapterDeps, network: Network, item: MediaInput): Promise<ByteReader> {
  const { source } = item;
  if (source !== undefined)
    return { size: source.sizeBytes, contentType: source.contentType, read: (span) => source.open(span) };
  const { bytes, contentType } = await deps.fetchMedia(network, item.url);
  return {
    size: bytes.length,
    contentType,
    read: async (span) => Readable.from([bytes.subarray(span.start, span.end + 1)]),
  };
}

/** Reads one span whole: only for pieces that must be buffered (a multipart segment), never a whole file. */
export async function readSpan(reader: ByteReader, span: ByteSpan): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await reader.read(span)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export const emptyMedia = (network: Network) =>
  new ProviderError({
    network,
    kind: 'media_invalid',
    networkCode: 'media_empty',
    networkMessage: 'The media file is empty.',
  });
