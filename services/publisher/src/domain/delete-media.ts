import { conflict, notFound } from '@svc/errors';
import { discard, type MediaStorage } from '@svc/media';
import type { MediaRepository } from '../data/media.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { recurrenceUsingMedia } from './recurrence-media.ts';

export interface DeleteMediaDeps {
  db: PrismaClient;
  media: MediaRepository;
  storage: MediaStorage;
}

/**
 * Deletes a media record and its files. A post not yet delivered (scheduled, queued or processing)
 * that uses it blocks the deletion with 409 naming the post: the networks fetch or receive the file
 * at delivery time, so deleting it then would fail that post. Finished posts do not block. Nor
 * does a recurrence with a time still to come (its occurrences not created yet post the media):
 * 409 naming it, until it is deleted (docs/api-recurring.md, "Occurrences").
 */
export async function deleteMedia(deps: DeleteMediaDeps, orgId: string, mediaId: string): Promise<void> {
  const row = await deps.media.find(orgId, mediaId);
  if (row === null) throw notFound(`The media ${mediaId}`);
  const user = await deps.media.activeJobUsing(orgId, mediaId);
  if (user !== null)
    throw conflict(
      `The media ${mediaId} is used by the ${user.status} post ${user.id}; cancel it or wait until it is delivered, then delete the media.`,
    );
  const recurrence = await recurrenceUsingMedia(deps.db, orgId, mediaId);
  if (recurrence !== null)
    throw conflict(
      `The media ${mediaId} is posted by the recurring post ${recurrence}; delete the recurrence (DELETE /v1/recurrences/${recurrence}), then the media.`,
    );
  await deps.media.delete(orgId, mediaId);
  await discard(deps.storage, mediaId);
}
