import { Type } from '@sinclair/typebox';
import { CompatibilityView, MediaView } from '@svc/contracts';
import { CursorPage, CursorQuery, HttpUrl, StringEnum } from './common.schemas.ts';

/**
 * The media record (docs/api-conventions.md, "Media"): measures from the bytes, a stable public URL,
 * per-network compatibility.
 */
export const MediaAsset = MediaView;
export const MediaImportBody = Type.Object({ url: HttpUrl }, { additionalProperties: false });
export const MediaVerifyBody = Type.Object({ url: HttpUrl }, { additionalProperties: false });
export const MediaVerifyResult = Type.Object({
  url: Type.String(),
  /** False when the URL could not be fetched or does not hold usable media; `error` says why. */
  reachable: Type.Boolean(),
  content_type: Type.Union([Type.String(), Type.Null()]),
  size_bytes: Type.Union([Type.Integer(), Type.Null()]),
  kind: Type.Union([StringEnum(['image', 'video', 'document'] as const), Type.Null()]),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  /** A PDF's pages; null for images and videos, and for a PDF larger than the bytes verify reads. */
  page_count: Type.Union([Type.Integer(), Type.Null()]),
  compatibility: Type.Union([CompatibilityView, Type.Null()]),
  error: Type.Union([
    Type.Object({ code: Type.String(), rule: Type.Union([Type.String(), Type.Null()]), message: Type.String() }),
    Type.Null(),
  ]),
});
export const MediaListQuery = Type.Object({ ...CursorQuery }, { additionalProperties: false });
export const MediaList = CursorPage(MediaAsset);
export const MediaIdParams = Type.Object({ media_id: Type.String({ minLength: 1, maxLength: 64 }) });
/** `{media_id}` or `{media_id}.jpg` (the JPEG rendition); anything else is a 404, like an unknown id. */
export const PublicMediaParams = Type.Object({ file: Type.String({ minLength: 1, maxLength: 64 }) });
