export { mediaConfigSchema, mediaConfigObjectSchema, type MediaConfig } from './config.ts';
export { type MediaStorage, type StoredObject, type ListedObject, type ByteRange, SAFE_KEY } from './storage.ts';
export { createLocalStorage } from './local-storage.ts';
export { createS3Storage, type S3StorageOptions } from './s3-storage.ts';
export { storageFromConfig } from './storage-from-config.ts';
export {
  SUPPORTED_TYPES,
  isSupportedType,
  kindOf,
  needsJpegRendition,
  type MediaFacts,
  type SupportedType,
} from './facts.ts';
export {
  NETWORKS as MEDIA_NETWORKS,
  NETWORK_LIMITS,
  compatibilityOf,
  type Compatibility,
  type CompatibilityRule,
  type MediaNetwork,
  type NetworkCompatibility,
} from './compatibility.ts';
export {
  ingest,
  discard,
  newMediaId,
  limitFor,
  refuseDeclaredLength,
  type Analysis,
  type AnalyseDeps,
  type IngestDeps,
  type IngestOptions,
  type MediaLimits,
  type Rendition,
  type StoredMedia,
} from './ingest.ts';
export { verifyStream, type Verification, type VerifiedFacts, type VerifyDeps } from './verify.ts';
export { ConcurrencySlots, ingestSlots, type ConcurrencyLimits, type ReleaseSlot } from './concurrency-slots.ts';
export { importUrl, verifyUrl, type UrlFetchOptions } from './import-url.ts';
export { decoderFromConfig, type MediaDecoder } from './decoder.ts';
export { assertFfprobeInstalled } from './probe.ts';
export { parseRange, type RangeResult } from './range.ts';
