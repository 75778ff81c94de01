import type { PostViewType } from '@svc/contracts';
import { conflict, notFound, validationError } from '@svc/errors';
import type { DraftRow, DraftsRepository } from '../data/drafts.repository.ts';
import type { JobsRepository } from '../data/jobs.repository.ts';
import type { Network } from '@svc/providers';
import { checkJob, type CheckedJob, type JobRequest } from './check-job.ts';
import { checkDeps } from './create-job.ts';
import { probingMedia } from './job-media.ts';
import { toPostView } from './post-view.ts';
import { requestOf, type DraftPayload } from './draft-request.ts';
import { flatMedia } from './thread-request.ts';
import type { ValidateJobDeps } from './validate-job.ts';

export interface DraftDeps extends ValidateJobDeps {
  drafts: DraftsRepository;
  jobs: JobsRepository;
}

/**
 * Checks a draft exactly as create checks a post (every problem of every target, 400), without
 * importing media or counting it: a draft reads its media URLs as `validate` does; publishing it
 * imports them and takes its unit of the monthly posts.
 */
export async function checkDraft(deps: DraftDeps, request: JobRequest): Promise<CheckedJob> {
  const checked = await checkJob(
    checkDeps(deps),
    request,
    probingMedia({ ...deps.media, verifyHeadBytes: deps.verifyHeadBytes }, deps.mediaPublicBaseUrl),
  );
  // A draft has no time until it is published (`scheduled_at` on publish), so it cannot hold a queue slot.
  const problems =
    request.queue === true
      ? [
          ...checked.problems,
          {
            path: '/body/queue',
            message: 'cannot be combined with draft: publish the draft with a scheduled_at instead',
            rule: 'queue_with_draft',
          },
        ]
      : checked.problems;
  if (problems.length > 0)
    throw validationError('The draft cannot be published to every target account as it stands.', problems);
  return checked;
}

/** The columns a draft shows in the history and search, from its checked request. */
export function draftContent(
  payload: DraftPayload,
  request: JobRequest,
  checked: CheckedJob,
): Omit<DraftRow, 'id' | 'orgId' | 'requestId'> {
  const providers: Network[] = [];
  for (const accountId of request.accountIds) {
    const provider = checked.accounts.get(accountId)?.provider;
    if (provider !== undefined && !providers.includes(provider)) providers.push(provider);
  }
  const media = request.thread === undefined ? request : flatMedia(request.thread);
  return {
    text: request.thread?.[0]?.text ?? request.text ?? '',
    mediaUrls: media.mediaUrls,
    mediaIds: media.mediaIds,
    options: request.options,
    accountIds: request.accountIds,
    providers,
    scheduledAt: checked.scheduledAt,
    firstComment: request.firstComment ?? null,
    draft: payload,
  };
}

/** Stores a checked post as a draft (`status: draft`): nothing is sent or counted until it is published. */
export async function createDraft(
  deps: DraftDeps,
  input: { orgId: string; requestId: string | null; jobId: string; payload: DraftPayload; idempotent: boolean },
): Promise<PostViewType> {
  if (input.idempotent) {
    const existing = await deps.db.job.findUnique({ where: { id: input.jobId }, include: { deliveries: true } });
    if (existing !== null) {
      if (existing.orgId !== input.orgId)
        throw conflict('This job id is taken; send the request with another Idempotency-Key.');
      return toPostView(existing);
    }
  }
  const request = requestOf(input.orgId, input.requestId, input.payload);
  const checked = await checkDraft(deps, request);
  await deps.drafts.insert({
    id: input.jobId,
    orgId: input.orgId,
    requestId: input.requestId,
    ...draftContent(input.payload, request, checked),
  });
  const job = await deps.jobs.find(input.orgId, input.jobId);
  if (job === null) throw notFound(`The post ${input.jobId}`);
  return toPostView(job);
}
