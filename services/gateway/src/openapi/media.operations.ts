import {
  MediaAsset,
  MediaIdParams,
  MediaImportBody,
  MediaList,
  MediaListQuery,
  MediaVerifyBody,
  MediaVerifyResult,
  PublicMediaParams,
} from './media.schemas.ts';
import { defineOperation } from './operation.ts';
import { IdempotencyKeyHeader } from './publishing.schemas.ts';

const idempotent = { 'Idempotency-Key': IdempotencyKeyHeader };

/** The media library: upload or import, verify, list, read, delete, and the public file address. */
export const mediaOperations = {
  createMedia: defineOperation({
    operationId: 'createMedia',
    method: 'post',
    path: '/v1/media',
    summary:
      'Upload media (multipart form with a `file` part, or the raw bytes) or import it from a URL (JSON `{url}`). The type is sniffed from the bytes.',
    tag: 'Media',
    auth: 'api_key_or_jwt',
    headers: idempotent,
    body: MediaImportBody,
    rawBodyTypes: [
      'multipart/form-data',
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/webp',
      'video/mp4',
      'video/quicktime',
      'application/pdf',
      'application/octet-stream',
    ],
    streamRawBody: true,
    responses: { 201: MediaAsset },
    errors: [400, 413, 415, 422],
  }),
  verifyMedia: defineOperation({
    operationId: 'verifyMedia',
    method: 'post',
    path: '/v1/media/verify',
    summary:
      'Check that a URL serves usable media, reading its headers and first bytes only (nothing is stored or decoded).',
    tag: 'Media',
    auth: 'api_key_or_jwt',
    body: MediaVerifyBody,
    responses: { 200: MediaVerifyResult },
    errors: [400],
  }),
  listMedia: defineOperation({
    operationId: 'listMedia',
    method: 'get',
    path: '/v1/media',
    summary: 'List the media library.',
    tag: 'Media',
    auth: 'api_key_or_jwt',
    query: MediaListQuery,
    responses: { 200: MediaList },
    errors: [400],
  }),
  getMedia: defineOperation({
    operationId: 'getMedia',
    method: 'get',
    path: '/v1/media/{media_id}',
    summary: 'A media asset.',
    tag: 'Media',
    auth: 'api_key_or_jwt',
    params: MediaIdParams,
    responses: { 200: MediaAsset },
    errors: [404],
  }),
  deleteMedia: defineOperation({
    operationId: 'deleteMedia',
    method: 'delete',
    path: '/v1/media/{media_id}',
    summary: 'Delete a media asset (409 naming the post while a post not yet delivered uses it).',
    tag: 'Media',
    auth: 'api_key_or_jwt',
    params: MediaIdParams,
    responses: { 204: null },
    errors: [404, 409],
  }),
  getPublicMedia: defineOperation({
    operationId: 'getPublicMedia',
    method: 'get',
    path: '/media/{file}',
    summary:
      'The bytes of a media file (`public_url`), without credentials: sniffed type, length, and single-range requests (206/416). `{media_id}.jpg` is the JPEG rendition.',
    tag: 'Media',
    auth: 'none',
    anonymousUnlimited: true,
    params: PublicMediaParams,
    responses: { 200: null, 206: null },
    errors: [404, 416, 429],
  }),
};
