import { conflict, notFound } from '@svc/errors';
import { discard, type MediaStorage } from '@svc/media';
import type { MediaRepository } from '../data/media.repository.ts';

export interface DeleteMediaDeps {
  media: MediaRepository;
  storage: MediaStorage;
}

/**
 * Deletes a media record and its files. A post not yet delivered (scheduled, queued or processing)
 * that uses it blocks the deletion with 409 naming the post: the networks fetch or receive the file
 * at delivery time, so deleting it then would fail that post. Finished posts do not block.
 */
export async function deleteMedia(deps: DeleteMediaDeps, orgId: string, mediaId: string): Promise<void> {
  const row = await deps.media.find(orgId, mediaId);
  if (row === null) throw notFound(`The media ${mediaId}`);
  const user = await deps.media.activeJobUsing(orgId, mediaId);
  if (user !== null)
    throw conflict(
      `The media ${mediaId} is used by the ${user.status} post ${user.id}; cancel it or wait until it is delivered, then delete the media.`,
    );
  await deps.media.delete(orgId, mediaId);
  await discard(deps.storage, mediaId);
}
