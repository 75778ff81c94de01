import {
  publisherMediaCreate,
  publisherMediaDelete,
  publisherMediaExists,
  publisherMediaGet,
  publisherMediaList,
  publisherMediaRelease,
  publisherMediaReserve,
  type Envelope,
  type RpcHandlers,
} from '@svc/contracts';
import { AppError, notFound, validationError } from '@svc/errors';
import type { MediaStorage } from '@svc/media';
import type { MediaRepository } from '../data/media.repository.ts';
import { deleteMedia } from '../domain/delete-media.ts';
import { toMediaView } from '../domain/media-view.ts';
import { recordMedia, reserveQuota } from '../domain/record-media.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export const mediaRpc = [
  publisherMediaReserve,
  publisherMediaRelease,
  publisherMediaCreate,
  publisherMediaGet,
  publisherMediaList,
  publisherMediaDelete,
  publisherMediaExists,
] as const;

export interface MediaRpcDeps {
  /** Read by the delete: a recurrence still to post a media item keeps it (domain/delete-media.ts). */
  db: PrismaClient;
  media: MediaRepository;
  storage: MediaStorage;
  publicBaseUrl: string;
  quotaBytes: number;
  reservationTtlMs: number;
}

function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

const MEDIA_ID = /^med_[A-Za-z0-9_-]{24}$/;

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t?: unknown; i?: unknown };
    const createdAt = new Date(String(value.t));
    if (typeof value.i !== 'string' || !MEDIA_ID.test(value.i) || Number.isNaN(createdAt.getTime()))
      throw new Error('bad cursor');
    return { createdAt, id: value.i };
  } catch {
    throw validationError('The cursor is not valid; pass the next_cursor of a previous page.', [
      { path: '/query/cursor', message: 'is not a cursor of this list' },
    ]);
  }
}

const encodeCursor = (createdAt: Date, id: string) =>
  Buffer.from(JSON.stringify({ t: createdAt.toISOString(), i: id })).toString('base64url');

export function mediaRpcHandlers(deps: MediaRpcDeps): RpcHandlers<typeof mediaRpc> {
  return {
    'publisher.media_reserve.v1': async (env) => ({
      reservation_id: await reserveQuota(deps, orgOf(env), env.payload.bytes),
    }),

    'publisher.media_release.v1': async (env) => {
      await deps.media.release(orgOf(env), env.payload.reservation_id);
      return { reservation_id: env.payload.reservation_id };
    },

    'publisher.media_create.v1': async (env) => {
      const p = env.payload;
      const row = await recordMedia(
        deps,
        {
          id: p.media_id,
          orgId: orgOf(env),
          contentType: p.content_type,
          kind: p.kind,
          sizeBytes: p.size_bytes,
          width: p.width,
          height: p.height,
          durationMs: p.duration_ms,
          pageCount: p.page_count ?? null,
          sha256: p.sha256,
          sourceUrl: p.source_url,
          renditionSizeBytes: p.rendition_size_bytes,
          compatibility: p.compatibility,
        },
        p.reservation_id,
      );
      return toMediaView(row, deps.publicBaseUrl);
    },

    'publisher.media_get.v1': async (env) => {
      const row = await deps.media.find(orgOf(env), env.payload.media_id);
      if (row === null) throw notFound(`The media ${env.payload.media_id}`);
      return toMediaView(row, deps.publicBaseUrl);
    },

    'publisher.media_list.v1': async (env) => {
      const { limit, cursor } = env.payload;
      const { rows, total } = await deps.media.page(
        orgOf(env),
        limit,
        cursor === undefined ? undefined : decodeCursor(cursor),
      );
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((row) => toMediaView(row, deps.publicBaseUrl)),
        next_cursor: rows.length > limit && last !== undefined ? encodeCursor(last.createdAt, last.id) : null,
        total,
      };
    },

    // Public: no organization; answers only whether a record exists, nothing of it.
    'publisher.media_exists.v1': async (env) => ({
      exists: (await deps.media.existingIds([env.payload.media_id])).has(env.payload.media_id),
    }),

    'publisher.media_delete.v1': async (env) => {
      await deleteMedia(deps, orgOf(env), env.payload.media_id);
      return { media_id: env.payload.media_id };
    },
  };
}
