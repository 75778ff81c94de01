/** What the service knows about a media file, measured from its bytes (never from a client's or server's claim). */
export interface MediaFacts {
  contentType: SupportedType;
  kind: MediaFileKind;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  /** A document's pages (PDF), null for images and videos. */
  pageCount: number | null;
  sha256: string;
}

export type MediaFileKind = 'image' | 'video' | 'document';

/** Types the library takes, as sniffed by `file-type`. */
export const SUPPORTED_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
  'application/pdf',
] as const;
export type SupportedType = (typeof SUPPORTED_TYPES)[number];

export const isSupportedType = (value: string): value is SupportedType =>
  (SUPPORTED_TYPES as readonly string[]).includes(value);
export const kindOf = (type: SupportedType): MediaFileKind =>
  type === 'application/pdf' ? 'document' : type.startsWith('video/') ? 'video' : 'image';

/** PNG and WebP get a JPEG rendition at ingest: Instagram takes JPEG only (docs/networks.md §1.4). */
export const needsJpegRendition = (type: SupportedType) => type === 'image/png' || type === 'image/webp';
