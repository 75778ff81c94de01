import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';
import { CompatibilityView, MediaFactsView, MediaView } from '../schemas/media.schemas.ts';

// The publisher owns the media library's records; the bytes never travel over the broker: the
// gateway streams uploads into media storage and registers the stored file here.

const MediaId = Type.String({ pattern: '^med_[A-Za-z0-9_-]{24}$' });
const ReservationId = Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' });

/**
 * Holds `bytes` (original and rendition) of the organization's storage quota for a file measured but
 * not yet stored; 413 past the quota, so nothing is stored. The reservation becomes the record
 * (`media_create` with its id), is released when the ingest fails, or expires.
 */
export const publisherMediaReserve = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.media_reserve.v1',
  service: 'publisher',
  payload: Type.Object({ bytes: Type.Integer({ minimum: 0 }) }),
  reply: Type.Object({ reservation_id: ReservationId }),
});

/** Gives back a reservation whose file was not recorded; unknown or expired ids are fine. */
export const publisherMediaRelease = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.media_release.v1',
  service: 'publisher',
  payload: Type.Object({ reservation_id: ReservationId }),
  reply: Type.Object({ reservation_id: ReservationId }),
});

/** Records a file already stored under `media_id`; 413 past the organization's storage quota (the caller then removes the file). */
export const publisherMediaCreate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.media_create.v1',
  service: 'publisher',
  payload: Type.Object({
    media_id: MediaId,
    ...MediaFactsView.properties,
    /** Optional on the wire: a gateway older than documents sends none (then null). */
    page_count: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    source_url: Type.Union([Type.String(), Type.Null()]),
    rendition_size_bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    compatibility: CompatibilityView,
    /** The reservation taken before storing (media_reserve), consumed by the record. */
    reservation_id: Type.Optional(ReservationId),
  }),
  reply: MediaView,
});

const MediaRef = Type.Object({ media_id: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * Whether any organization has a record under `media_id`: the public URL serves only recorded
 * files, so bytes stored by an ingest that never recorded them (an orphan awaiting the sweep) are not.
 */
export const publisherMediaExists = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.media_exists.v1',
  service: 'publisher',
  payload: Type.Object({ media_id: MediaId }),
  reply: Type.Object({ exists: Type.Boolean() }),
});

export const publisherMediaGet = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.media_get.v1',
  service: 'publisher',
  payload: MediaRef,
  reply: MediaView,
});

/** Newest first, keyset-paginated. */
export const publisherMediaList = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.media_list.v1',
  service: 'publisher',
  payload: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 100 }), cursor: Type.Optional(Type.String()) }),
  reply: Type.Object({
    items: Type.Array(MediaView),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    total: Type.Integer({ minimum: 0 }),
  }),
});

/** Deletes the record and its stored files; 409 naming the post while a post not yet delivered uses it. */
export const publisherMediaDelete = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.media_delete.v1',
  service: 'publisher',
  payload: MediaRef,
  reply: Type.Object({ media_id: Type.String() }),
});
