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

/** Hashes and counts what passes, failing past the cap: the memory held is one chunk, whatever the file. */
class Measure extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;
  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return callback(new SpoolTooLarge(this.maxBytes));
    this.hash.update(chunk);
    callback(null, chunk);
  }
}

export interface Spooled {
  path: string;
  sizeBytes: number;
  sha256: string;
  /** Removes the file (and any sibling made from it, e.g. a rendition) on every exit path. */
  cleanup: () => Promise<void>;
}

/** Streams a source to a temporary file, measuring it on the way. */
export async function spool(source: Readable, tmpDir: string, maxBytes: number): Promise<Spooled> {
  await mkdir(tmpDir, { recursive: true });
  const file = path.join(path.resolve(tmpDir), `spool-${randomBytes(12).toString('hex')}`);
  const cleanup = async () => {
    await rm(file, { force: true });
    await rm(`${file}.jpg`, { force: true });
  };
  const measure = new Measure(maxBytes);
  try {
    await pipeline(source, measure, createWriteStream(file));
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { path: file, sizeBytes: measure.bytes, sha256: measure.hash.digest('hex'), cleanup };
}
