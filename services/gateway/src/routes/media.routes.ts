import {
  publisherMediaCreate,
  publisherMediaDelete,
  publisherMediaGet,
  publisherMediaList,
  publisherMediaRelease,
  publisherMediaReserve,
  type MediaViewType,
} from '@svc/contracts';
import { AppError, isAppError } from '@svc/errors';
import type { SsrfPolicy } from '@svc/http';
import {
  discard,
  importUrl,
  ingest,
  isSupportedType,
  parseRange,
  refuseDeclaredLength,
  SAFE_KEY,
  verifyUrl,
  type ConcurrencySlots,
  type IngestDeps,
  type IngestOptions,
  type MediaLimits,
  type StoredMedia,
} from '@svc/media';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { idempotencyKeyOf, type IdempotencyStore } from '../idempotency/idempotency-store.ts';
import { operations } from '../openapi/operations.ts';
import type { PublicMediaLimiter } from '../rate-limit/public-media-limiter.ts';
import { ingestMultipart } from './media-upload.ts';
import { PublicMediaRecords } from './public-media-records.ts';

export interface MediaRouteDeps {
  rpc: RpcCaller;
  idempotency: IdempotencyStore;
  ingest: IngestDeps;
  /** SSRF policy and whole-download deadline of imports and verifications. */
  fetch: { policy: SsrfPolicy; deadlineMs: number };
  /** Uploads, imports and verifications running at once, per process and per organization. */
  slots: ConcurrencySlots;
  /** Bytes a verification reads at most (MEDIA_VERIFY_HEAD_BYTES). */
  verifyHeadBytes: number;
  publicMedia: { limiter: PublicMediaLimiter; maxAgeSeconds: number };
}

/** A form's boundaries and part headers around the file: Content-Length counts them too. */
const MULTIPART_ENVELOPE_BYTES = 64 * 1024;

/** Fetch failures that mean "could not get the file", as opposed to "got a file that will not do". */
const UNREACHABLE = new Set([
  'media_url',
  'media_url_blocked',
  'media_unreachable',
  'media_download_failed',
  'media_timeout',
]);

const contentTypeOf = (headers: Record<string, string | string[] | undefined>) =>
  String(headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

/**
 * Refuses an upload whose Content-Length is past the limit before reading it: the declared type's
 * limit for raw bytes of a supported type, the largest otherwise (the file part's own type is not
 * known before its bytes). The connection is closed rather than the body drained. Returns the
 * length the file is then held to once sniffed (raw bodies only).
 */
function refuseAnnouncedUpload(
  headers: Record<string, string | string[] | undefined>,
  limits: MediaLimits,
): number | undefined {
  const length = Number(headers['content-length']);
  if (!Number.isSafeInteger(length) || length < 0) return undefined;
  const type = contentTypeOf(headers);
  const multipart = type === 'multipart/form-data';
  try {
    refuseDeclaredLength(
      multipart ? length - MULTIPART_ENVELOPE_BYTES : length,
      limits,
      !multipart && isSupportedType(type) ? type : undefined,
    );
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw new AppError(error.code, error.message, {
      ...(error.details === undefined ? {} : { details: error.details }),
      headers: { Connection: 'close' },
    });
  }
  return multipart ? undefined : length;
}

const gone = (maxAgeSeconds: number) =>
  new AppError('not_found', 'The media file was not found.', {
    headers: { 'Cache-Control': `public, max-age=${Math.min(maxAgeSeconds, 60)}` },
  });

/**
 * The media library (docs/api-conventions.md, "Media"). Bytes go from the request (or the imported URL) to media
 * storage through a spool file, never whole in memory and never over RabbitMQ; the record is then
 * registered with the publisher, which owns the library's records. The public URL is served here
 * from storage, without credentials, for recorded files only: the id is its only secret.
 */
export function mediaRoutes(deps: MediaRouteDeps): Route[] {
  type Context = { orgId: string; requestId: string };
  const records = new PublicMediaRecords(deps.rpc);

  /**
   * The organization's quota is reserved once the file is measured and before it is stored, so a
   * file past the quota is never stored and parallel uploads cannot share the last free bytes.
   */
  const ingestWithQuota = async (
    context: Context,
    run: (options: IngestOptions) => Promise<StoredMedia>,
  ): Promise<{ stored: StoredMedia; reservationId: string }> => {
    let reservationId: string | undefined;
    try {
      const stored = await run({
        beforeStore: async (facts, renditionBytes) => {
          reservationId = (
            await deps.rpc(publisherMediaReserve, { bytes: facts.sizeBytes + (renditionBytes ?? 0) }, context)
          ).reservation_id;
        },
      });
      return { stored, reservationId: reservationId! };
    } catch (error) {
      if (reservationId !== undefined) await release(reservationId, context);
      throw error;
    }
  };

  // A release that fails leaves the reservation to expire (MEDIA_QUOTA_RESERVATION_TTL_MS).
  const release = (reservationId: string, context: Context) =>
    deps.rpc(publisherMediaRelease, { reservation_id: reservationId }, context).then(
      () => undefined,
      () => undefined,
    );

  const register = async (
    { stored, reservationId }: { stored: StoredMedia; reservationId: string },
    sourceUrl: string | null,
    context: Context,
  ): Promise<MediaViewType> => {
    try {
      return await deps.rpc(
        publisherMediaCreate,
        {
          media_id: stored.mediaId,
          content_type: stored.facts.contentType,
          kind: stored.facts.kind,
          size_bytes: stored.facts.sizeBytes,
          width: stored.facts.width,
          height: stored.facts.height,
          duration_ms: stored.facts.durationMs,
          page_count: stored.facts.pageCount,
          sha256: stored.facts.sha256,
          source_url: sourceUrl,
          rendition_size_bytes: stored.rendition?.sizeBytes ?? null,
          compatibility: stored.compatibility,
          reservation_id: reservationId,
        },
        context,
      );
    } catch (error) {
      // Refused (quota, validation): the stored files belong to no record, so they go. An unanswered
      // call may still have created the record, so its files stay (the orphan sweep removes them if
      // it did not) and its reservation expires.
      if (isAppError(error) && error.status < 500) {
        await discard(deps.ingest.storage, stored.mediaId);
        await release(reservationId, context);
      }
      throw error;
    }
  };

  return [
    defineRoute(operations.createMedia, async ({ body, stream, principal, requestId, headers }) => {
      const key = idempotencyKeyOf(headers);
      const scope =
        key === undefined
          ? undefined
          : { orgId: principal.orgId, key, method: 'post', path: operations.createMedia.path };
      // An upload cannot be hashed before it is read: its type (without the per-request multipart
      // boundary) and length stand for it.
      const fingerprint =
        stream === undefined
          ? body
          : { content_type: contentTypeOf(headers), content_length: headers['content-length'] ?? null };
      const context = { orgId: principal.orgId, requestId };
      const declaredBytes = stream === undefined ? undefined : refuseAnnouncedUpload(headers, deps.ingest.limits);
      const result = await deps.idempotency.run(scope, fingerprint, () =>
        deps.slots.run(principal.orgId, async () => {
          if (stream === undefined) {
            const imported = await ingestWithQuota(context, (options) =>
              importUrl(deps.ingest, body.url, deps.fetch, options),
            );
            return { status: 201, body: await register(imported, body.url, context) };
          }
          const uploaded = await ingestWithQuota(context, (options) =>
            contentTypeOf(headers) === 'multipart/form-data'
              ? ingestMultipart(deps.ingest, stream, headers, options)
              : ingest(deps.ingest, stream, { ...options, declaredBytes }),
          );
          return { status: 201, body: await register(uploaded, null, context) };
        }),
      );
      // A replayed answer leaves the upload unread.
      if (stream !== undefined && !stream.readableEnded) stream.resume();
      return result;
    }),

    defineRoute(operations.verifyMedia, async ({ body, principal }) => {
      // A full process or organization is the call's answer (429), not a verdict on the URL.
      const releaseSlot = deps.slots.acquire(principal.orgId);
      try {
        const { facts, compatibility } = await verifyUrl(
          { ...deps.ingest, headBytes: deps.verifyHeadBytes },
          body.url,
          deps.fetch,
        );
        return {
          status: 200,
          body: {
            url: body.url,
            reachable: true,
            content_type: facts.contentType,
            size_bytes: facts.sizeBytes,
            kind: facts.kind,
            width: facts.width,
            height: facts.height,
            duration_ms: facts.durationMs,
            page_count: facts.pageCount,
            compatibility,
            error: null,
          },
        };
      } catch (error) {
        if (!isAppError(error)) throw error;
        const rule = typeof error.details?.[0]?.rule === 'string' ? error.details[0].rule : null;
        return {
          status: 200,
          body: {
            url: body.url,
            reachable: rule === null || !UNREACHABLE.has(rule),
            content_type: null,
            size_bytes: null,
            kind: null,
            width: null,
            height: null,
            duration_ms: null,
            page_count: null,
            compatibility: null,
            error: { code: error.code, rule, message: error.message },
          },
        };
      } finally {
        releaseSlot();
      }
    }),

    defineRoute(operations.listMedia, async ({ query, principal, requestId }) => ({
      status: 200,
      body: await deps.rpc(
        publisherMediaList,
        { limit: query.limit ?? 50, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) },
        { orgId: principal.orgId, requestId },
      ),
    })),

    defineRoute(operations.getMedia, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await deps.rpc(publisherMediaGet, { media_id: params.media_id }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.deleteMedia, async ({ params, principal, requestId }) => {
      await deps.rpc(publisherMediaDelete, { media_id: params.media_id }, { orgId: principal.orgId, requestId });
      return { status: 204 };
    }),

    defineRoute(operations.getPublicMedia, async ({ params, headers, address, requestId }) => {
      const { limiter, maxAgeSeconds } = deps.publicMedia;
      await limiter.admit(address);
      const recorded = SAFE_KEY.test(params.file) && (await records.has(params.file.replace(/\.jpg$/, ''), requestId));
      const object = recorded !== false ? await deps.ingest.storage.stat(params.file) : null;
      if (object === null) {
        await limiter.missed(address);
        throw gone(maxAgeSeconds);
      }
      const common = {
        'Content-Type': object.contentType,
        'Accept-Ranges': 'bytes',
        // The bytes under an id never change, but the id can be deleted: caches keep a file a short
        // while (no `immutable`), so a deleted file stops being served within max-age.
        'Cache-Control': `public, max-age=${maxAgeSeconds}`,
        'X-Content-Type-Options': 'nosniff',
      };
      const range = parseRange(typeof headers.range === 'string' ? headers.range : undefined, object.size);
      if (range.kind === 'unsatisfiable')
        return { status: 416, headers: { ...common, 'Content-Range': `bytes */${object.size}` } };
      const releaseStream = limiter.stream(address);
      try {
        if (range.kind === 'partial') {
          const { start, end } = range.range;
          const stream = await deps.ingest.storage.read(params.file, range.range);
          stream.once('close', releaseStream);
          return {
            status: 206,
            headers: {
              ...common,
              'Content-Range': `bytes ${start}-${end}/${object.size}`,
              'Content-Length': String(end - start + 1),
            },
            stream,
          };
        }
        const stream = await deps.ingest.storage.read(params.file);
        stream.once('close', releaseStream);
        return { status: 200, headers: { ...common, 'Content-Length': String(object.size) }, stream };
      } catch (error) {
        releaseStream();
        throw error;
      }
    }),
  ];
}
