import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export class SpoolTooLarge extends Error {
  override name = 'SpoolTooLarge';
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}

export interface SpoolOptions {
  /** Bytes held back and handed to `capFor` before anything is written. */
  headBytes: number;
  /**
   * The cap for this file, decided from its first bytes (or all of them when shorter); throwing
   * refuses the file with nothing more read.
   */
  capFor: (head: Buffer) => Promise<number>;
}

/**
 * Hashes and counts what passes, holding the first bytes back until the cap is known: the rest of
 * the file is read only while under the cap of its own type, and the memory held is one chunk (plus
 * the head) whatever the file.
 */
class Measure extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  private cap: number | undefined;
  private head: Buffer[] = [];

  constructor(private readonly options: SpoolOptions) {
    super();
  }

  private release(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.options.capFor(head).then(
      (cap) => {
        this.cap = cap;
        if (this.bytes > cap) return callback(new SpoolTooLarge(cap));
        this.hash.update(head);
        callback(null, head);
      },
      (error: unknown) => callback(error as Error),
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.cap === undefined) {
      this.head.push(chunk);
      if (this.bytes < this.options.headBytes) return callback();
      return this.release(callback);
    }
    if (this.bytes > this.cap) return callback(new SpoolTooLarge(this.cap));
    this.hash.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.cap !== undefined) return callback();
    this.release(callback);
  }
}

export interface Spooled {
  path: string;
  sizeBytes: number;
  sha256: string;
  /** Removes the file (and any sibling made from it, e.g. a rendition) on every exit path. */
  cleanup: () => Promise<void>;
}

/** Streams a source to a temporary file, measuring it on the way and stopping at its cap. */
export async function spool(source: Readable, tmpDir: string, options: SpoolOptions): Promise<Spooled> {
  await mkdir(tmpDir, { recursive: true });
  const file = path.join(path.resolve(tmpDir), `spool-${randomBytes(12).toString('hex')}`);
  const cleanup = async () => {
    await rm(file, { force: true });
    await rm(`${file}.jpg`, { force: true });
  };
  const measure = new Measure(options);
  try {
    await pipeline(source, measure, createWriteStream(file));
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { path: file, sizeBytes: measure.bytes, sha256: measure.hash.digest('hex'), cleanup };
}
