import type { PostViewType } from '@svc/contracts';
import { conflict, notFound, validationError } from '@svc/errors';
import type { MediaRow } from '../data/media.repository.ts';
import { checkJob } from './check-job.ts';
import { checkDeps } from './create-job.ts';
import type { DraftDeps } from './create-draft.ts';
import { staleVersion, type DraftChanges } from './draft-request.ts';
import { importingMedia } from './job-media.ts';
import { toPostView, type JobWithDeliveries } from './post-view.ts';

/** What may change of a post that failed: its content, so a retry can send it fixed. */
const EDITABLE = new Set(['text', 'media_urls', 'media_ids']);

/**
 * Edits the text and/or media of a failed (or partial) post before `POST /v1/posts/{id}/retry`
 * sends its failed targets again. The edited content is checked exactly like a create against those
 * targets (their accounts and networks' rules; media URLs imported into the library), then written
 * by one UPDATE conditional on the post still being failed or partial at the version read. Targets
 * already published keep what they published. Threads and other fields are not editable once sent.
 */
export async function editFailedPost(
  deps: DraftDeps,
  job: JobWithDeliveries,
  input: { orgId: string; requestId: string | null; version: number | undefined; changes: DraftChanges },
): Promise<PostViewType> {
  const fields = Object.keys(input.changes).filter((key) => input.changes[key as keyof DraftChanges] !== undefined);
  const refused = fields.filter((key) => !EDITABLE.has(key));
  if (refused.length > 0 || job.thread !== null)
    throw conflict(
      `The post ${job.id} is ${job.status}: only the text and media of a post that is not a thread can be edited before a retry${refused.length > 0 ? ` (not ${refused.join(', ')})` : ''}.`,
    );
  if (input.version !== undefined && input.version !== job.version) throw staleVersion(job.id, input.version);
  const { text, media_urls: mediaUrls, media_ids: mediaIds } = input.changes;
  const mediaChanged = mediaUrls !== undefined || mediaIds !== undefined;
  const failed = [...job.deliveries]
    .sort((a, b) => a.position - b.position)
    .filter((delivery) => delivery.status === 'failed' && delivery.platformPostId === null);
  let rows: MediaRow[] = [];
  const request = {
    orgId: input.orgId,
    requestId: input.requestId,
    accountIds: failed.map((delivery) => delivery.accountId),
    text: text ?? job.text,
    thread: undefined,
    mediaUrls: mediaChanged ? (mediaUrls ?? []) : [],
    mediaIds: mediaChanged ? (mediaIds ?? []) : job.mediaIds,
    options: job.options as Record<string, Record<string, unknown>>,
    scheduledAt: undefined,
    optionsField: 'platform_options',
    firstComment: job.firstComment ?? undefined,
  };
  if (request.accountIds.length === 0)
    throw conflict(`The post ${job.id} has no failed target to retry, so there is nothing to edit.`);
  const checked = await checkJob(
    checkDeps(deps),
    request,
    importingMedia(deps.media, deps.mediaPublicBaseUrl, (imported) => (rows = imported)),
  );
  if (checked.problems.length > 0)
    throw validationError('The edited post cannot be published to its failed targets as it stands.', checked.problems);
  const { count } = await deps.db.job.updateMany({
    where: { id: job.id, orgId: input.orgId, status: { in: ['failed', 'partial'] }, version: job.version },
    data: {
      text: request.text,
      mediaIds: mediaChanged ? rows.map((row) => row.id) : job.mediaIds,
      mediaUrls: mediaChanged ? (mediaUrls ?? []) : job.mediaUrls,
      version: { increment: 1 },
    },
  });
  if (count === 0) throw conflict(`The post ${job.id} changed meanwhile (edited or retried); fetch it and try again.`);
  const edited = await deps.jobs.find(input.orgId, job.id);
  if (edited === null) throw notFound(`The post ${job.id}`);
  return toPostView(edited);
}
