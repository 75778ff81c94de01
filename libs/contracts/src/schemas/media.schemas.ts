import { Type, type Static } from '@sinclair/typebox';

const nullable = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const COMPATIBILITY_RULES = ['format', 'size', 'dimensions', 'aspect_ratio', 'duration', 'pages'] as const;

/** One network's verdict on a file: ok, or the first rule it breaks. */
export const NetworkCompatibilityView = Type.Object({
  ok: Type.Boolean(),
  rule: Type.Union([
    Type.Unsafe<(typeof COMPATIBILITY_RULES)[number]>({ type: 'string', enum: [...COMPATIBILITY_RULES] }),
    Type.Null(),
  ]),
  message: nullable(Type.String()),
});

export const CompatibilityView = Type.Object({
  instagram: NetworkCompatibilityView,
  facebook: NetworkCompatibilityView,
  x: NetworkCompatibilityView,
  linkedin: NetworkCompatibilityView,
  tiktok: NetworkCompatibilityView,
});

/** Measures of a file, from its bytes. */
export const MediaFactsView = Type.Object({
  content_type: Type.String(),
  kind: Type.Unsafe<'image' | 'video' | 'document'>({ type: 'string', enum: ['image', 'video', 'document'] }),
  size_bytes: Type.Integer({ minimum: 0 }),
  width: nullable(Type.Integer({ minimum: 0 })),
  height: nullable(Type.Integer({ minimum: 0 })),
  duration_ms: nullable(Type.Integer({ minimum: 0 })),
  /** A document's (PDF's) pages, counted from its bytes; null for images and videos. */
  page_count: nullable(Type.Integer({ minimum: 0 })),
});

/** A media record of the library (docs/api-conventions.md, "Media"), as the API shows it. */
export const MediaView = Type.Object({
  media_id: Type.String(),
  public_url: Type.String(),
  ...MediaFactsView.properties,
  sha256: Type.String(),
  source_url: nullable(Type.String()),
  /** The JPEG rendition of a PNG/WebP image (what Instagram is given), null for other files. */
  jpeg_rendition_url: nullable(Type.String()),
  compatibility: CompatibilityView,
  created_at: Type.String({ format: 'date-time' }),
});
export type MediaViewType = Static<typeof MediaView>;
