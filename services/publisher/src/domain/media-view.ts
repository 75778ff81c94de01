import type { MediaViewType } from '@svc/contracts';
import type { Compatibility } from '@svc/media';
import type { MediaRow } from '../data/media.repository.ts';

/** `{base}/media/{id}`: served by the gateway without credentials (or by the bucket/CDN at that base). */
export const publicUrlOf = (base: string, key: string) => `${base.replace(/\/$/, '')}/media/${key}`;

export function toMediaView(row: MediaRow, publicBase: string): MediaViewType {
  return {
    media_id: row.id,
    public_url: publicUrlOf(publicBase, row.id),
    content_type: row.contentType,
    kind: row.kind as MediaViewType['kind'],
    size_bytes: Number(row.sizeBytes),
    width: row.width,
    height: row.height,
    duration_ms: row.durationMs,
    page_count: row.pageCount,
    sha256: row.sha256,
    source_url: row.sourceUrl,
    jpeg_rendition_url: row.renditionSizeBytes === null ? null : publicUrlOf(publicBase, `${row.id}.jpg`),
    compatibility: row.compatibility as unknown as Compatibility,
    created_at: row.createdAt.toISOString(),
  };
}
