import { createEnvelope, publisherJobDispatchBatch, type Envelope } from '@svc/contracts';

/** A claimed row on its way back to the publisher. */
export interface DispatchRow {
  job_id: string;
  org_id: string;
  run_at: Date;
  request_id: string | null;
}

/**
 * The dispatch commands for jobs claimed together: `publisher.job_dispatch.v2`, up to `jobsPerMessage`
 * jobs each, so the publisher queues a burst in a few transactions instead of one per job.
 * Jobs are grouped by organization first, so a message usually names one (its envelope's `org_id`,
 * and `request_id` when it carries a single job); a message mixing organizations names none.
 */
export function dispatchCommands(rows: readonly DispatchRow[], jobsPerMessage: number): Envelope[] {
  const ordered = [...rows].sort((a, b) => (a.org_id < b.org_id ? -1 : a.org_id > b.org_id ? 1 : 0));
  const envelopes: Envelope[] = [];
  for (let start = 0; start < ordered.length; start += jobsPerMessage) {
    const chunk = ordered.slice(start, start + jobsPerMessage);
    const orgs = new Set(chunk.map((row) => row.org_id));
    const orgId = orgs.size === 1 && chunk[0]!.org_id !== '' ? chunk[0]!.org_id : null;
    envelopes.push(
      createEnvelope(
        publisherJobDispatchBatch,
        { jobs: chunk.map((row) => ({ job_id: row.job_id, scheduled_at: row.run_at.toISOString() })) },
        { orgId, requestId: chunk.length === 1 ? chunk[0]!.request_id : null },
      ),
    );
  }
  return envelopes;
}
