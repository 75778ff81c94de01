import type { PostViewType } from '@svc/contracts';
import { conflict, notFound } from '@svc/errors';
import { toPostView } from './post-view.ts';
import { checkDraft, draftContent, type DraftDeps } from './create-draft.ts';
import { editFailedPost } from './edit-failed-post.ts';
import { editedDraft, requestOf, staleVersion, storedDraft, type DraftChanges } from './draft-request.ts';

export interface UpdateDraftInput {
  orgId: string;
  requestId: string | null;
  jobId: string;
  /** The version the caller edited (`If-Match` or `version`); the current one when none was given. */
  version: number | undefined;
  changes: DraftChanges;
  optionsField: string | undefined;
}

/**
 * Edits a draft: the edited request is checked exactly like a create, then written by one UPDATE
 * conditional on the post still being a draft at the version read, which it bumps. Of two edits of
 * one version, the second gets 409 `conflict` (optimistic concurrency; nothing is locked meanwhile).
 */
export async function updateDraft(deps: DraftDeps, input: UpdateDraftInput): Promise<PostViewType> {
  const job = await deps.jobs.find(input.orgId, input.jobId);
  if (job === null) throw notFound(`The post ${input.jobId}`);
  if (job.status === 'failed' || job.status === 'partial') return editFailedPost(deps, job, input);
  if (job.status !== 'draft')
    throw conflict(
      `The post ${input.jobId} is ${job.status}; only a draft (or the text and media of a failed post) can be edited.`,
    );
  if (input.version !== undefined && input.version !== job.version) throw staleVersion(input.jobId, input.version);
  const payload = editedDraft(storedDraft(job.draft), input.changes, input.optionsField);
  const request = requestOf(input.orgId, input.requestId, payload);
  const checked = await checkDraft(deps, request);
  const written = await deps.drafts.update(
    input.orgId,
    input.jobId,
    job.version,
    draftContent(payload, request, checked),
    job.approvalStatus !== null,
  );
  if (!written) {
    const now = await deps.jobs.find(input.orgId, input.jobId);
    if (now === null) throw notFound(`The post ${input.jobId}`);
    if (now.status !== 'draft') throw conflict(`The post ${input.jobId} is ${now.status}; only a draft can be edited.`);
    throw staleVersion(input.jobId, job.version);
  }
  const edited = await deps.jobs.find(input.orgId, input.jobId);
  if (edited === null) throw notFound(`The post ${input.jobId}`);
  return toPostView(edited);
}
