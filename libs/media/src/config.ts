import { Type, type Static } from '@sinclair/typebox';

/**
 * Media settings; the gateway (uploads, imports, public URLs) and the publisher (accept-time imports,
 * delivery) spread this fragment into their config schemas and must agree on it.
 */
export const mediaConfigSchema = {
  /** Where media files are kept: `local`, a directory (MEDIA_LOCAL_DIR), or `s3`, a bucket of any S3-compatible store (MEDIA_S3_*). */
  MEDIA_STORAGE: Type.Union([Type.Literal('local'), Type.Literal('s3')], { default: 'local' }),
  /** Directory holding the media files when MEDIA_STORAGE is `local`; a relative path starts from the process's working directory. */
  MEDIA_LOCAL_DIR: Type.String({ minLength: 1, default: './data/media' }),
  /** Where uploads and imports are spooled while they are checked (sniffed, measured, converted). */
  MEDIA_TMP_DIR: Type.String({ minLength: 1, default: './data/media-tmp' }),
  /** Bucket holding the media files; required when MEDIA_STORAGE is `s3`. */
  MEDIA_S3_BUCKET: Type.Optional(Type.String({ minLength: 1 })),
  /** Region of the bucket, used to sign its requests. */
  MEDIA_S3_REGION: Type.String({ minLength: 1, default: 'us-east-1' }),
  /** Endpoint of an S3-compatible store other than AWS (MinIO, R2...); unset: AWS S3. */
  MEDIA_S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** Addresses objects as `{endpoint}/{bucket}/{key}` instead of through a bucket subdomain, as MinIO and most self-hosted stores need. */
  MEDIA_S3_FORCE_PATH_STYLE: Type.Boolean({ default: false }),
  /**
   * Access key id of the bucket, used with MEDIA_S3_SECRET_ACCESS_KEY; unless both are set the AWS
   * SDK's default credential chain (environment, instance role...) applies.
   */
  MEDIA_S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  /** Secret access key paired with MEDIA_S3_ACCESS_KEY_ID. */
  MEDIA_S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Base of every `public_url` (`{base}/media/{file}`): the gateway's public address (the default is
   * the gateway's own default address), or a bucket/CDN base serving the same keys. Networks fetch
   * from it, so it must be reachable by them.
   */
  MEDIA_PUBLIC_BASE_URL: Type.String({ pattern: '^https?://', default: 'http://127.0.0.1:8080' }),
  /** Largest image other than a GIF accepted, in bytes; a larger upload or import is refused (413 naming the limit). */
  MEDIA_MAX_IMAGE_BYTES: Type.Integer({ minimum: 1, default: 20 * 1024 * 1024 }),
  /** Largest GIF accepted, in bytes; a larger upload or import is refused (413 naming the limit). */
  MEDIA_MAX_GIF_BYTES: Type.Integer({ minimum: 1, default: 15 * 1024 * 1024 }),
  /** Largest video accepted, in bytes; a larger upload or import is refused (413 naming the limit). */
  MEDIA_MAX_VIDEO_BYTES: Type.Integer({ minimum: 1, default: 512 * 1024 * 1024 }),
  /** Largest document (PDF) accepted, in bytes; LinkedIn's own limit (docs/networks.md §4.4). A larger one is refused (413 naming the limit). */
  MEDIA_MAX_DOCUMENT_BYTES: Type.Integer({ minimum: 1, default: 100 * 1024 * 1024 }),
  /** Most pages a document (PDF) may have, counted from its bytes; LinkedIn's own limit. More is refused (400 `max_pages`). */
  MEDIA_MAX_DOCUMENT_PAGES: Type.Integer({ minimum: 1, default: 300 }),
  /** Bytes of media (originals and renditions) one organization may keep. */
  MEDIA_ORG_QUOTA_BYTES: Type.Integer({ minimum: 1, default: 10 * 1024 * 1024 * 1024 }),
  /**
   * Ingests (uploads, imports, verifications; the publisher's accept-time imports) one process runs
   * at once; past it a 429 with Retry-After. With the per-type limits this sizes the temp space:
   * MEDIA_TMP_DIR needs this x MEDIA_MAX_VIDEO_BYTES (docs/operations.md, "Temp space").
   */
  MEDIA_INGEST_CONCURRENCY: Type.Integer({ minimum: 1, default: 4 }),
  /** Ingests one organization may run at once in one process, out of MEDIA_INGEST_CONCURRENCY, so one tenant cannot take them all. */
  MEDIA_INGEST_ORG_CONCURRENCY: Type.Integer({ minimum: 1, default: 2 }),
  /**
   * Bytes `POST /v1/media/verify` reads of a URL at most: the type and image dimensions come from the
   * first bytes, a video's from its head when its index (moov) is at the front.
   */
  MEDIA_VERIFY_HEAD_BYTES: Type.Integer({ minimum: 4100, default: 4 * 1024 * 1024 }),
  /** Milliseconds a whole download may take, for an import (`POST /v1/media` with a URL) or a verification. */
  MEDIA_IMPORT_DEADLINE_MS: Type.Integer({ minimum: 100, default: 120_000 }),
  /**
   * Largest image accepted, in pixels (width x height x frames), read from the file's header and
   * refused before any decode: a small PNG can declare gigapixels (docs/security.md, "Media decoding").
   */
  MEDIA_MAX_INPUT_PIXELS: Type.Integer({ minimum: 1, default: 40_000_000 }),
  /** Image decodes and video probes running at once in one process; the rest wait in a queue. */
  MEDIA_DECODE_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
  /**
   * Memory the decodes running at once may take together, estimated per file from its header; an
   * image that alone needs more is refused (in practice: WebP above about 22 megapixels).
   */
  MEDIA_DECODE_MEMORY_BYTES: Type.Integer({ minimum: 16 * 1024 * 1024, default: 256 * 1024 * 1024 }),
  /**
   * Decodes waiting for a slot at most; past it an upload or import answers 503 with Retry-After.
   * Room for a post's 35 media_urls imported at once, twice.
   */
  MEDIA_DECODE_QUEUE: Type.Integer({ minimum: 0, default: 64 }),
  /** How long one decode or probe may run before it is stopped (sharp aborted, ffprobe killed). */
  MEDIA_DECODE_TIMEOUT_MS: Type.Integer({ minimum: 1000, default: 15_000 }),
};

export const mediaConfigObjectSchema = Type.Object(mediaConfigSchema);
export type MediaConfig = Static<typeof mediaConfigObjectSchema>;
