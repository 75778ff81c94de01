/** What the service knows about a media file, measured from its bytes (never from a client's or server's claim). */
export interface MediaFacts {
  contentType: SupportedType;
  kind: 'image' | 'video';
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  sha256: string;
}

/** Types the library takes, as sniffed by `file-type`. */
export const SUPPORTED_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'video/mp4',
  'video/quicktime',
] as const;
export type SupportedType = (typeof SUPPORTED_TYPES)[number];

export const isSupportedType = (value: string): value is SupportedType =>
  (SUPPORTED_TYPES as readonly string[]).includes(value);
export const kindOf = (type: SupportedType): 'image' | 'video' => (type.startsWith('video/') ? 'video' : 'image');

/** PNG and WebP get a JPEG rendition at ingest: Instagram takes JPEG only (docs/networks.md §1.4). */
export const needsJpegRendition = (type: SupportedType) => type === 'image/png' || type === 'image/webp';
