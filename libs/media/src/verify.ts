import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '@svc/errors';
import { imageSize } from 'image-size';
import { compatibilityOf, type Compatibility } from './compatibility.ts';
import { kindOf, needsJpegRendition, type MediaFacts, type SupportedType } from './facts.ts';
import { measureDocument } from './document.ts';
import {
  documentPages,
  limitFor,
  refuseDeclaredLength,
  SNIFF_BYTES,
  sniffType,
  tooLarge,
  type AnalyseDeps,
} from './ingest.ts';
import { assertPixelsWithin, type ImageHeader } from './decode-limits.ts';
import { defaultDecoder } from './decoder.ts';
import { probe, ProbeError, type Dimensions } from './probe.ts';

export interface VerifyDeps extends AnalyseDeps {
  /** The most bytes read of the file (MEDIA_VERIFY_HEAD_BYTES). */
  headBytes: number;
}

/** What a verification learns without storing the file: no hash, and dimensions only when the head holds them. */
export type VerifiedFacts = Omit<MediaFacts, 'sha256'>;

export interface Verification {
  facts: VerifiedFacts;
  compatibility: Compatibility;
}

const damaged = (type: SupportedType, reason: string) =>
  new AppError('validation_error', `The ${type} file is damaged: ${reason}.`, {
    details: [{ path: '/body', message: reason, rule: 'decodable' }],
  });

/**
 * Pulls chunks until `enough` says so, the head is full, or the body ends. `enough` is asked each
 * time the head has doubled, so a 4 MiB head is not copied chunk by chunk.
 */
async function readHead(
  body: AsyncIterator<Buffer>,
  max: number,
  enough: (head: Buffer) => boolean,
  start: Buffer[] = [],
): Promise<{ head: Buffer; ended: boolean }> {
  const chunks = [...start];
  let length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  let askAt = length;
  while (length < max) {
    if (length >= askAt) {
      if (enough(Buffer.concat(chunks))) break;
      askAt = Math.max(length * 2, SNIFF_BYTES);
    }
    const next = await body.next();
    if (next.done === true) return { head: Buffer.concat(chunks), ended: true };
    chunks.push(next.value);
    length += next.value.length;
  }
  return { head: Buffer.concat(chunks), ended: false };
}

/** Counts what is left of a body without keeping it, failing past `limit`. */
async function countRest(body: AsyncIterator<Buffer>, already: number, limit: number): Promise<number> {
  let total = already;
  for (let next = await body.next(); next.done !== true; next = await body.next()) {
    total += next.value.length;
    if (total > limit) throw tooLarge(limit);
  }
  return total;
}

const imageDimensions = (head: Buffer): Dimensions | null => {
  try {
    const size = imageSize(head);
    return size.width !== undefined && size.height !== undefined
      ? { width: size.width, height: size.height, durationMs: null, pageCount: null }
      : null;
  } catch {
    return null;
  }
};

/** Runs `read` on the head written to a temp file, removed on every way out. */
async function withHeadFile<T>(deps: AnalyseDeps, head: Buffer, read: (file: string) => Promise<T>): Promise<T> {
  await mkdir(deps.tmpDir, { recursive: true });
  const file = path.join(path.resolve(deps.tmpDir), `verify-${randomBytes(12).toString('hex')}`);
  try {
    await writeFile(file, head);
    return await read(file);
  } finally {
    await rm(file, { force: true });
  }
}

/** ffprobe on the head spooled to a file: enough for an MP4 whose index (moov) comes first. */
const videoDimensions = (deps: AnalyseDeps, head: Buffer, type: SupportedType): Promise<Dimensions | null> =>
  withHeadFile(deps, head, async (file) => {
    try {
      return await probe(file, type);
    } catch (error) {
      if (error instanceof ProbeError) return null;
      throw error;
    }
  });

/**
 * A PDF's page count needs the whole file (its cross-reference table is at the end): counted, and
 * held to the page limit, when the file fitted in the head; unknown otherwise.
 */
const documentDimensions = (deps: AnalyseDeps, head: Buffer, ended: boolean): Promise<Dimensions | null> =>
  ended
    ? withHeadFile(deps, head, (file) => measureDocument(file, head.length, documentPages(deps.limits), deps.decoder))
    : Promise.resolve(null);

/**
 * Checks a remote file reading only what the answer needs, storing nothing: the type from its first
 * bytes, the size from Content-Length (refused past the type's limit before more is read; counted,
 * not kept, when absent), image dimensions from the image header, a video's from its first
 * `headBytes` when its index is there, a PDF's page count when the whole file fits in the head.
 * Nothing is decoded. When the dimensions are beyond the head
 * they are null and the compatibility rules needing them are not applied; a PNG/WebP's JPEG
 * rendition is taken to be no larger than the file.
 */
export async function verifyStream(
  deps: VerifyDeps,
  body: Readable,
  contentLength: number | undefined,
): Promise<Verification> {
  refuseDeclaredLength(contentLength, deps.limits);
  const iterator = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const sniffed = await readHead(iterator, SNIFF_BYTES, () => false);
  const contentType = await sniffType(sniffed.head);
  refuseDeclaredLength(contentLength, deps.limits, contentType);
  const limit = limitFor(contentType, deps.limits);
  const kind = kindOf(contentType);
  const { head, ended } = sniffed.ended
    ? sniffed
    : await readHead(
        iterator,
        Math.min(deps.headBytes, limit + 1),
        kind === 'image' ? (bytes) => imageDimensions(bytes) !== null : () => false,
        [sniffed.head],
      );
  if (head.length > limit) throw tooLarge(limit);
  const sizeBytes = ended ? head.length : (contentLength ?? (await countRest(iterator, head.length, limit)));
  const dimensions =
    kind === 'image'
      ? imageDimensions(head)
      : kind === 'video'
        ? await videoDimensions(deps, head, contentType)
        : await documentDimensions(deps, head, ended);
  if (dimensions === null && ended)
    throw damaged(contentType, kind === 'image' ? 'its header holds no dimensions' : 'no valid container');
  // An import of this image would be refused from its header (the pixel limit): say so now.
  if (kind === 'image' && dimensions !== null) {
    assertPixelsWithin(
      {
        width: dimensions.width ?? 0,
        height: dimensions.height ?? 0,
        format: contentType.slice('image/'.length) as ImageHeader['format'],
      },
      (deps.decoder ?? defaultDecoder()).limits,
    );
  }
  const facts: VerifiedFacts = {
    contentType,
    kind,
    sizeBytes,
    ...(dimensions ?? { width: null, height: null, durationMs: null, pageCount: null }),
  };
  return { facts, compatibility: compatibilityOf(facts, needsJpegRendition(contentType) ? sizeBytes : null) };
}
