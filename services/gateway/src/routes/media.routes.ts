import { publisherMediaCreate, publisherMediaDelete, publisherMediaGet, publisherMediaList, type MediaViewType } from '@svc/contracts';
import { isAppError, notFound } from '@svc/errors';
import type { SsrfPolicy } from '@svc/http';
import { discard, importUrl, ingest, parseRange, SAFE_KEY, verifyUrl, type IngestDeps, type StoredMedia } from '@svc/media';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { idempotencyKeyOf, type IdempotencyStore } from '../idempotency/idempotency-store.ts';
import { operations } from '../openapi/operations.ts';
import { ingestMultipart } from './media-upload.ts';

export interface MediaRouteDeps {
  rpc: RpcCaller;
  idempotency: IdempotencyStore;
  ingest: IngestDeps;
  /** SSRF policy and whole-download deadline of imports and verifications. */
  fetch: { policy: SsrfPolicy; deadlineMs: number };
}

/** Fetch failures that mean "could not get the file", as opposed to "got a file that will not do". */
const UNREACHABLE = new Set(['media_url', 'media_url_blocked', 'media_unreachable', 'media_download_failed', 'media_timeout']);

const contentTypeOf = (headers: Record<string, string | string[] | undefined>) => String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/**
 * The media library (decisions §8). Bytes go from the request (or the imported URL) to media
 * storage through a spool file, never whole in memory and never over RabbitMQ; the record is then
 * registered with the publisher, which owns the library's records. The public URL is served here
 * from storage, without credentials: the id is its only secret.
 */
export function mediaRoutes(deps: MediaRouteDeps): Route[] {
  const register = async (stored: StoredMedia, sourceUrl: string | null, context: { orgId: string; requestId: string }): Promise<MediaViewType> => {
    try {
      return await deps.rpc(publisherMediaCreate, {
        media_id: stored.mediaId,
        content_type: stored.facts.contentType,
        kind: stored.facts.kind,
        size_bytes: stored.facts.sizeBytes,
        width: stored.facts.width,
        height: stored.facts.height,
        duration_ms: stored.facts.durationMs,
        sha256: stored.facts.sha256,
        source_url: sourceUrl,
        rendition_size_bytes: stored.rendition?.sizeBytes ?? null,
        compatibility: stored.compatibility,
      }, context);
    } catch (error) {
      // Refused (quota, validation): the stored files belong to no record, so they go. An unanswered
      // call may still have created the record, so its files stay.
      if (isAppError(error) && error.status < 500) await discard(deps.ingest.storage, stored.mediaId);
      throw error;
    }
  };

  return [
    defineRoute(operations.createMedia, async ({ body, stream, principal, requestId, headers }) => {
      const key = idempotencyKeyOf(headers);
      const scope = key === undefined ? undefined : { orgId: principal.orgId, key, method: 'post', path: operations.createMedia.path };
      // An upload cannot be hashed before it is read: its type (without the per-request multipart
      // boundary) and length stand for it.
      const fingerprint = stream === undefined ? body : { content_type: contentTypeOf(headers), content_length: headers['content-length'] ?? null };
      const context = { orgId: principal.orgId, requestId };
      const result = await deps.idempotency.run(scope, fingerprint, async () => {
        let stored: StoredMedia;
        let sourceUrl: string | null = null;
        if (stream === undefined) {
          sourceUrl = body.url;
          stored = await importUrl(deps.ingest, body.url, deps.fetch);
        } else if (contentTypeOf(headers) === 'multipart/form-data') {
          stored = await ingestMultipart(deps.ingest, stream, headers);
        } else {
          stored = await ingest(deps.ingest, stream);
        }
        return { status: 201, body: await register(stored, sourceUrl, context) };
      });
      // A replayed answer leaves the upload unread.
      if (stream !== undefined && !stream.readableEnded) stream.resume();
      return result;
    }),

    defineRoute(operations.verifyMedia, async ({ body }) => {
      try {
        const { facts, compatibility } = await verifyUrl(deps.ingest, body.url, deps.fetch);
        return {
          status: 200,
          body: {
            url: body.url, reachable: true, content_type: facts.contentType, size_bytes: facts.sizeBytes, kind: facts.kind,
            width: facts.width, height: facts.height, duration_ms: facts.durationMs, compatibility, error: null,
          },
        };
      } catch (error) {
        if (!isAppError(error)) throw error;
        const rule = typeof error.details?.[0]?.rule === 'string' ? error.details[0].rule : null;
        return {
          status: 200,
          body: {
            url: body.url, reachable: rule === null || !UNREACHABLE.has(rule), content_type: null, size_bytes: null, kind: null,
            width: null, height: null, duration_ms: null, compatibility: null, error: { code: error.code, rule, message: error.message },
          },
        };
      }
    }),

    defineRoute(operations.listMedia, async ({ query, principal, requestId }) => ({
      status: 200,
      body: await deps.rpc(publisherMediaList, { limit: query.limit ?? 50, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.getMedia, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await deps.rpc(publisherMediaGet, { media_id: params.media_id }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.deleteMedia, async ({ params, principal, requestId }) => {
      await deps.rpc(publisherMediaDelete, { media_id: params.media_id }, { orgId: principal.orgId, requestId });
      return { status: 204 };
    }),

    defineRoute(operations.getPublicMedia, async ({ params, headers }) => {
      const object = SAFE_KEY.test(params.file) ? await deps.ingest.storage.stat(params.file) : null;
      if (object === null) throw notFound('The media file');
      const common = {
        'Content-Type': object.contentType,
        'Accept-Ranges': 'bytes',
        // The bytes under an id never change; a deleted file answers 404.
        'Cache-Control': 'public, max-age=86400, immutable',
        'X-Content-Type-Options': 'nosniff',
      };
      const range = parseRange(typeof headers.range === 'string' ? headers.range : undefined, object.size);
      if (range.kind === 'unsatisfiable') return { status: 416, headers: { ...common, 'Content-Range': `bytes */${object.size}` } };
      if (range.kind === 'partial') {
        const { start, end } = range.range;
        return {
          status: 206,
          headers: { ...common, 'Content-Range': `bytes ${start}-${end}/${object.size}`, 'Content-Length': String(end - start + 1) },
          stream: await deps.ingest.storage.read(params.file, range.range),
        };
      }
      return { status: 200, headers: { ...common, 'Content-Length': String(object.size) }, stream: await deps.ingest.storage.read(params.file) };
    }),
  ];
}
