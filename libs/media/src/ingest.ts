import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { AppError } from '@svc/errors';
import { fromFile } from 'file-type';
import { compatibilityOf, type Compatibility } from './compatibility.ts';
import type { MediaDecoder } from './decoder.ts';
import { isSupportedType, kindOf, needsJpegRendition, SUPPORTED_TYPES, type MediaFacts, type SupportedType } from './facts.ts';
import { probe, ProbeError, renderJpeg } from './probe.ts';
import { spool, SpoolTooLarge, type Spooled } from './spool.ts';
import type { MediaStorage } from './storage.ts';

export interface MediaLimits {
  maxImageBytes: number;
  maxGifBytes: number;
  maxVideoBytes: number;
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

/** `med_` + 18 random bytes (144 bits): the id is the public URL's only secret (decisions §8). */
export const newMediaId = () => `med_${randomBytes(18).toString('base64url')}`;

const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round((bytes / MB) * 10) / 10} MB`;

export function limitFor(type: SupportedType, limits: MediaLimits): number {
  if (type === 'image/gif') return limits.maxGifBytes;
  return kindOf(type) === 'video' ? limits.maxVideoBytes : limits.maxImageBytes;
}

/** 413 naming the limit; the spool stops at the largest limit, the per-type one applies after sniffing. */
export const tooLarge = (limit: number, what = 'media files') =>
  new AppError('payload_too_large', `The file is larger than the ${mb(limit)} limit for ${what}.`, { details: [{ path: '/body', message: `larger than ${limit} bytes`, rule: 'max_bytes', limit }] });

async function measure(spooled: Spooled, deps: AnalyseDeps): Promise<{ facts: MediaFacts; renditionBytes: number | null }> {
  const sniffed = await fromFile(spooled.path);
  if (sniffed === undefined || !isSupportedType(sniffed.mime)) {
    throw new AppError('unsupported_media_type', `The file is ${sniffed === undefined ? 'of an unknown type' : sniffed.mime} by its content; the library takes ${SUPPORTED_TYPES.join(', ')}.`);
  }
  const contentType = sniffed.mime;
  const limit = limitFor(contentType, deps.limits);
  if (spooled.sizeBytes > limit) throw tooLarge(limit, contentType === 'image/gif' ? 'GIFs' : `${kindOf(contentType)}s`);
  let dimensions;
  try {
    dimensions = await probe(spooled.path, contentType, deps.decoder);
  } catch (error) {
    if (error instanceof ProbeError) throw new AppError('validation_error', `The ${contentType} file is damaged: ${error.message}.`, { details: [{ path: '/body', message: error.message, rule: 'decodable' }] });
    throw error;
  }
  let renditionBytes: number | null = null;
  if (needsJpegRendition(contentType)) {
    await renderJpeg(spooled.path, `${spooled.path}.jpg`, deps.decoder);
    renditionBytes = (await stat(`${spooled.path}.jpg`)).size;
  }
  const facts: MediaFacts = { contentType, kind: kindOf(contentType), sizeBytes: spooled.sizeBytes, sha256: spooled.sha256, ...dimensions };
  return { facts, renditionBytes };
}

async function spoolOrRefuse(source: Readable, deps: AnalyseDeps): Promise<Spooled> {
  const cap = Math.max(deps.limits.maxImageBytes, deps.limits.maxGifBytes, deps.limits.maxVideoBytes);
  try {
    return await spool(source, deps.tmpDir, cap);
  } catch (error) {
    if (error instanceof SpoolTooLarge) throw tooLarge(error.limit);
    throw error;
  }
}

/** Measures a stream (type from its bytes, size, dimensions, duration) and stores nothing. */
export async function analyse(deps: AnalyseDeps, source: Readable): Promise<Analysis> {
  const spooled = await spoolOrRefuse(source, deps);
  try {
    const { facts, renditionBytes } = await measure(spooled, deps);
    return { facts, compatibility: compatibilityOf(facts, renditionBytes) };
  } finally {
    await spooled.cleanup();
  }
}

/**
 * Ingests a stream into the library: spooled to disk (never whole in memory), sniffed, measured,
 * given a JPEG rendition when PNG/WebP, and stored under a new unguessable id. The caller records it;
 * if recording fails it must `discard` the stored objects.
 */
export async function ingest(deps: IngestDeps, source: Readable): Promise<StoredMedia> {
  const spooled = await spoolOrRefuse(source, deps);
  try {
    const { facts, renditionBytes } = await measure(spooled, deps);
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
