import { AppError } from '@svc/errors';
import type { MediaRepository, MediaRow, NewMedia } from '../data/media.repository.ts';

export interface RecordMediaDeps {
  media: MediaRepository;
  quotaBytes: number;
}

export interface ReserveQuotaDeps extends RecordMediaDeps {
  /** How long a reservation counts when its ingest never records nor releases it. */
  reservationTtlMs: number;
}

const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

const overQuota = (quotaBytes: number, usedBytes: number) =>
  new AppError(
    'payload_too_large',
    `The organization's media storage quota of ${mb(quotaBytes)} would be exceeded (${mb(usedBytes)} in use or being uploaded); delete media first.`,
    {
      details: [
        {
          path: '/body',
          message: `quota ${quotaBytes} bytes, ${usedBytes} in use`,
          rule: 'org_storage_quota',
          limit: quotaBytes,
        },
      ],
    },
  );

/** Holds `bytes` of the organization's quota for a file about to be stored (413 naming the quota otherwise). */
export async function reserveQuota(deps: ReserveQuotaDeps, orgId: string, bytes: number): Promise<string> {
  const result = await deps.media.reserve(orgId, bytes, deps.quotaBytes, deps.reservationTtlMs);
  if ('reservationId' in result) return result.reservationId;
  throw overQuota(deps.quotaBytes, result.usedBytes);
}

/**
 * Records a stored file within the organization's storage quota (413 naming the quota otherwise),
 * turning the ingest's reservation, when it has one, into the record.
 */
export async function recordMedia(deps: RecordMediaDeps, media: NewMedia, reservationId?: string): Promise<MediaRow> {
  const result = await deps.media.createWithinQuota(media, deps.quotaBytes, reservationId);
  if ('created' in result) return result.created;
  throw overQuota(deps.quotaBytes, result.usedBytes);
}
