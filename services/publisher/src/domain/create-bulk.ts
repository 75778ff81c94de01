import { createHash } from 'node:crypto';
import { newId, type PostViewType } from '@svc/contracts';
import { conflict, validationError } from '@svc/errors';
import type { NewJobRow, StoreOutcome } from '../data/accept.repository.ts';
import type { MediaRow } from '../data/media.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { checkBulk, type BulkProblem } from './check-bulk.ts';
import type { CheckedJob, JobRequest } from './check-job.ts';
import { checkDeps } from './create-job.ts';
import { importingMedia, probingMedia } from './job-media.ts';
import { prepareJob } from './new-job-row.ts';
import { bulkPlanLimitReached } from './post-quota.ts';
import { toPostView } from './post-view.ts';
import type { ValidateJobDeps } from './validate-job.ts';

export interface CreateBulkDeps extends ValidateJobDeps {
  /** Stores every job of the bulk in one statement, all or none against the monthly posts limit. */
  storeWhole: (jobs: NewJobRow[]) => Promise<StoreOutcome[]>;
}

export interface CreateBulkInput {
  orgId: string;
  requestId: string | null;
  /** From the Idempotency-Key: every row's job id derives from it, so a retry finds the jobs. */
  operationId?: string | undefined;
  requests: JobRequest[];
}

/** The job id of a bulk's row under an idempotent operation: a UUID (version 8) from both. */
export function bulkJobId(operationId: string, index: number): string {
  const hex = createHash('sha256').update(`${operationId}\nbulk row ${index}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const refused = (problems: BulkProblem[], rows: number) =>
  validationError(
    `${new Set(problems.map((problem) => problem.row)).size} of the ${rows} posts cannot be published as they stand; nothing was created.`,
    problems.map((problem) => ({ ...problem })),
  );

/**
 * Creates every post of a bulk or none (docs/api-conventions.md, "Bulk"). First every row is
 * checked as a single create would be, with media URLs read rather than imported, so a refused bulk
 * stores no file in the common case; then the rows with media URLs are checked again importing them
 * (what a single create does). Any problem of any row refuses the bulk with all of them. The jobs
 * are stored by one accept statement (all rows or none against the monthly posts limit: 402).
 */
export async function createBulk(deps: CreateBulkDeps, input: CreateBulkInput): Promise<{ items: PostViewType[] }> {
  const { orgId, operationId, requests } = input;
  const ids = requests.map((_, index) => (operationId === undefined ? newId() : bulkJobId(operationId, index)));
  if (operationId !== undefined) {
    const existing = await existingJobs(deps.db, orgId, ids);
    if (existing !== null) return { items: existing };
  }
  const probing = probingMedia({ ...deps.media, verifyHeadBytes: deps.verifyHeadBytes }, deps.mediaPublicBaseUrl);
  const first = await checkBulk(checkDeps(deps), requests, () => probing);
  if (first.problems.length > 0) throw refused(first.problems, requests.length);

  const imported = new Map<JobRequest, MediaRow[]>();
  const withUrls = requests.filter((request) => request.mediaUrls.length > 0);
  const importing = (request: JobRequest) =>
    importingMedia(deps.media, deps.mediaPublicBaseUrl, (rows) => imported.set(request, rows));
  const second = withUrls.length === 0 ? undefined : await checkBulk(checkDeps(deps), withUrls, importing);
  if (second !== undefined && second.problems.length > 0)
    throw refused(
      second.problems.map((problem) => ({ ...problem, row: requests.indexOf(withUrls[problem.row - 1]!) + 1 })),
      requests.length,
    );

  const checkedOf = (request: JobRequest, index: number): CheckedJob =>
    second?.checked[withUrls.indexOf(request)] ?? first.checked[index]!;
  const prepared = requests.map((request, index) => {
    const checked = checkedOf(request, index);
    const mediaIds = imported.get(request)?.map((row) => row.id) ?? request.mediaIds;
    return prepareJob(
      request,
      { jobId: ids[index]!, accounts: checked.accounts, scheduledAt: checked.scheduledAt, mediaIds },
      deps.deliveryRunBatches,
    );
  });
  let outcomes: StoreOutcome[];
  try {
    outcomes = await deps.storeWhole(prepared.map((job) => job.row));
  } catch (error) {
    // The same idempotent bulk, still running after its caller gave up, stored it first.
    const raced = operationId === undefined ? null : await existingJobs(deps.db, orgId, ids);
    if (raced !== null) return { items: raced };
    throw error;
  }
  const items: PostViewType[] = [];
  let waiting = false;
  for (const [index, outcome] of outcomes.entries()) {
    if (outcome.kind === 'quota')
      throw bulkPlanLimitReached(requests.length, outcome.plan, outcome.used, outcome.limit);
    waiting ||= outcome.waiting;
    items.push(prepared[index]!.view(outcome.createdAt));
  }
  if (waiting) {
    for (const job of prepared) for (const delivery of job.row.deliveries) deps.onDeferred?.(delivery.provider);
    deps.wakeWaiting?.(orgId);
  }
  deps.wake();
  return { items };
}

/**
 * The bulk's jobs if an earlier run of its operation stored them (all of them: a bulk is stored by
 * one statement), in row order; null if none is stored.
 */
async function existingJobs(db: PrismaClient, orgId: string, ids: string[]): Promise<PostViewType[] | null> {
  const jobs = await db.job.findMany({ where: { id: { in: ids } }, include: { deliveries: true } });
  if (jobs.length === 0) return null;
  if (jobs.some((job) => job.orgId !== orgId) || jobs.length !== ids.length)
    throw conflict('These job ids are taken; send the request with another Idempotency-Key.');
  const byId = new Map(jobs.map((job) => [job.id, job]));
  return ids.map((id) => toPostView(byId.get(id)!));
}
