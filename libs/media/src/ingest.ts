import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { AppError } from '@svc/errors';
import { fromBuffer } from 'file-type';
import { compatibilityOf, type Compatibility } from './compatibility.ts';
import type { MediaDecoder } from './decoder.ts';
import {
  isSupportedType,
  kindOf,
  needsJpegRendition,
  SUPPORTED_TYPES,
  type MediaFacts,
  type SupportedType,
} from './facts.ts';
import { DOCUMENT_DEFAULTS, measureDocument } from './document.ts';
import { probe, ProbeError, renderJpeg } from './probe.ts';
import { spool, SpoolTooLarge, type Spooled } from './spool.ts';
import type { MediaStorage } from './storage.ts';

export interface MediaLimits {
  maxImageBytes: number;
  maxGifBytes: number;
  maxVideoBytes: number;
  /** Largest PDF (MEDIA_MAX_DOCUMENT_BYTES); unset: 100 MB. */
  maxDocumentBytes?: number;
  /** Most pages of a PDF (MEDIA_MAX_DOCUMENT_PAGES); unset: 300. */
  maxDocumentPages?: number;
}

export interface AnalyseDeps {
  tmpDir: string;
  limits: MediaLimits;
  /** The process's decode pool and pixel limit (decoderFromConfig); unset: the settings' defaults. */
  decoder?: MediaDecoder;
}

export interface IngestDeps extends AnalyseDeps {
  storage: MediaStorage;
}

export interface Rendition {
  key: string;
  contentType: 'image/jpeg';
  sizeBytes: number;
}

export interface Analysis {
  facts: MediaFacts;
  compatibility: Compatibility;
}

export interface StoredMedia extends Analysis {
  mediaId: string;
  rendition: Rendition | null;
}

/** `med_` + 18 random bytes (144 bits): the id is the public URL's only secret (docs/api-conventions.md, "Media"). */
export const newMediaId = () => `med_${randomBytes(18).toString('base64url')}`;

const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

const documentBytes = (limits: MediaLimits) => limits.maxDocumentBytes ?? DOCUMENT_DEFAULTS.maxBytes;
export const documentPages = (limits: MediaLimits) => limits.maxDocumentPages ?? DOCUMENT_DEFAULTS.maxPages;

export function limitFor(type: SupportedType, limits: MediaLimits): number {
  if (type === 'image/gif') return limits.maxGifBytes;
  if (type === 'application/pdf') return documentBytes(limits);
  return kindOf(type) === 'video' ? limits.maxVideoBytes : limits.maxImageBytes;
}

/** 413 naming the limit that applies to the file. */
export const tooLarge = (limit: number, what = 'media files') =>
  new AppError('payload_too_large', `The file is larger than the ${mb(limit)} limit for ${what}.`, {
    details: [{ path: '/body', message: `larger than ${limit} bytes`, rule: 'max_bytes', limit }],
  });

export const largestLimit = (limits: MediaLimits) =>
  Math.max(limits.maxImageBytes, limits.maxGifBytes, limits.maxVideoBytes, documentBytes(limits));
const describe = (type: SupportedType) =>
  type === 'image/gif' ? 'GIFs' : type === 'application/pdf' ? 'documents (PDF)' : `${kindOf(type)}s`;

/** file-type's sample: every supported type is told apart within its first 4100 bytes. */
export const SNIFF_BYTES = 4100;

/** The type of a file by its first bytes (415 when it is none the library takes). */
export async function sniffType(head: Buffer): Promise<SupportedType> {
  const sniffed = await fromBuffer(head);
  if (sniffed === undefined || !isSupportedType(sniffed.mime)) {
    throw new AppError(
      'unsupported_media_type',
      `The file is ${sniffed === undefined ? 'of an unknown type' : sniffed.mime} by its content; the library takes ${SUPPORTED_TYPES.join(', ')}.`,
    );
  }
  return sniffed.mime;
}

/**
 * Refuses an announced length (Content-Length) past the limit before any byte is read: the limit of
 * `type` when it is known, otherwise the largest limit.
 */
export function refuseDeclaredLength(
  declaredBytes: number | undefined,
  limits: MediaLimits,
  type?: SupportedType,
): void {
  if (declaredBytes === undefined) return;
  const limit = type === undefined ? largestLimit(limits) : limitFor(type, limits);
  if (declaredBytes > limit) throw tooLarge(limit, type === undefined ? 'media files' : describe(type));
}

export interface IngestOptions {
  /** The length the sender announced; refused past the sniffed type's limit before the rest is read. */
  declaredBytes?: number | undefined;
  /**
   * Runs once the file is measured and before anything is stored (the quota reservation); when it
   * throws nothing is stored.
   */
  beforeStore?: (facts: MediaFacts, renditionBytes: number | null) => Promise<void>;
}

interface SpooledMedia extends Spooled {
  contentType: SupportedType;
}

/**
 * Spools a stream, sniffing its first bytes: the rest is read only up to the limit of the type
 * found (a PNG stops at the image limit, not at the video one), and an announced length past that
 * limit is refused before the rest is read.
 */
async function spoolOrRefuse(
  source: Readable,
  deps: AnalyseDeps,
  declaredBytes: number | undefined,
): Promise<SpooledMedia> {
  refuseDeclaredLength(declaredBytes, deps.limits);
  let contentType: SupportedType | undefined;
  try {
    const spooled = await spool(source, deps.tmpDir, {
      headBytes: SNIFF_BYTES,
      capFor: async (head) => {
        contentType = await sniffType(head);
        refuseDeclaredLength(declaredBytes, deps.limits, contentType);
        return limitFor(contentType, deps.limits);
      },
    });
    return { ...spooled, contentType: contentType! };
  } catch (error) {
    if (error instanceof SpoolTooLarge)
      throw tooLarge(error.limit, contentType === undefined ? 'media files' : describe(contentType));
    throw error;
  }
}

async function measure(
  spooled: SpooledMedia,
  deps: AnalyseDeps,
): Promise<{ facts: MediaFacts; renditionBytes: number | null }> {
  const { contentType } = spooled;
  let dimensions;
  try {
    dimensions =
      contentType === 'application/pdf'
        ? await measureDocument(spooled.path, spooled.sizeBytes, documentPages(deps.limits), deps.decoder)
        : await probe(spooled.path, contentType, deps.decoder);
  } catch (error) {
    if (error instanceof ProbeError)
      throw new AppError('validation_error', `The ${contentType} file is damaged: ${error.message}.`, {
        details: [{ path: '/body', message: error.message, rule: 'decodable' }],
      });
    throw error;
  }
  let renditionBytes: number | null = null;
  if (needsJpegRendition(contentType)) {
    await renderJpeg(spooled.path, `${spooled.path}.jpg`, deps.decoder);
    renditionBytes = (await stat(`${spooled.path}.jpg`)).size;
  }
  const facts: MediaFacts = {
    contentType,
    kind: kindOf(contentType),
    sizeBytes: spooled.sizeBytes,
    sha256: spooled.sha256,
    ...dimensions,
  };
  return { facts, renditionBytes };
}

/**
 * Ingests a stream into the library: spooled to disk (never whole in memory) up to its sniffed
 * type's limit, measured, given a JPEG rendition when PNG/WebP, and stored under a new unguessable
 * id once `beforeStore` agreed. The caller records it; if recording fails it must `discard` the
 * stored objects.
 */
export async function ingest(deps: IngestDeps, source: Readable, options: IngestOptions = {}): Promise<StoredMedia> {
  const spooled = await spoolOrRefuse(source, deps, options.declaredBytes);
  try {
    const { facts, renditionBytes } = await measure(spooled, deps);
    await options.beforeStore?.(facts, renditionBytes);
    const mediaId = newMediaId();
    await deps.storage.putFile(mediaId, spooled.path, facts.contentType);
    let rendition: Rendition | null = null;
    if (renditionBytes !== null) {
      rendition = { key: `${mediaId}.jpg`, contentType: 'image/jpeg', sizeBytes: renditionBytes };
      await deps.storage.putFile(rendition.key, `${spooled.path}.jpg`, 'image/jpeg');
    }
    return { mediaId, facts, rendition, compatibility: compatibilityOf(facts, renditionBytes) };
  } finally {
    await spooled.cleanup();
  }
}

/** Removes a media's objects (original and rendition); missing objects are fine. */
export async function discard(storage: MediaStorage, mediaId: string): Promise<void> {
  await storage.delete(mediaId);
  await storage.delete(`${mediaId}.jpg`);
}
