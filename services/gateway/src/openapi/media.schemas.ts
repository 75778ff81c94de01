import { Type } from '@sinclair/typebox';
import { CursorPage, CursorQuery, HttpUrl, Id, StringEnum, Timestamp } from './common.schemas.ts';

export const MediaAsset = Type.Object({
  media_id: Id,
  public_url: Type.String({ format: 'uri' }),
  kind: StringEnum(['image', 'video'] as const),
  content_type: Type.String(),
  size_bytes: Type.Integer({ minimum: 0 }),
  source_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});
export const MediaImportBody = Type.Object({ url: HttpUrl }, { additionalProperties: false });
export const MediaVerifyBody = Type.Object({ url: HttpUrl }, { additionalProperties: false });
export const MediaVerifyResult = Type.Object({
  url: Type.String(),
  reachable: Type.Boolean(),
  content_type: Type.Union([Type.String(), Type.Null()]),
  size_bytes: Type.Union([Type.Integer(), Type.Null()]),
  kind: Type.Union([StringEnum(['image', 'video'] as const), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export const MediaListQuery = Type.Object({ ...CursorQuery }, { additionalProperties: false });
export const MediaList = CursorPage(MediaAsset);
export const MediaIdParams = Type.Object({ media_id: Id });
