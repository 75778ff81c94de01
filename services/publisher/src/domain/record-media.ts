import { AppError } from '@svc/errors';
import type { MediaRepository, MediaRow, NewMedia } from '../data/media.repository.ts';

export interface RecordMediaDeps {
  media: MediaRepository;
  quotaBytes: number;
}

const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** Records a stored file within the organization's storage quota (413 naming the quota otherwise). */
export async function recordMedia(deps: RecordMediaDeps, media: NewMedia): Promise<MediaRow> {
  const result = await deps.media.createWithinQuota(media, deps.quotaBytes);
  if ('created' in result) return result.created;
  throw new AppError('payload_too_large', `The organization's media storage quota of ${mb(deps.quotaBytes)} would be exceeded (${mb(result.usedBytes)} in use); delete media first.`, {
    details: [{ path: '/body', message: `quota ${deps.quotaBytes} bytes, ${result.usedBytes} in use`, rule: 'org_storage_quota', limit: deps.quotaBytes }],
  });
}
