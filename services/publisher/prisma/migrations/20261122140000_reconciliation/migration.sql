-- Issue 13: reconciliation of uncertain attempts, short leases, job counters.

-- When the current attempt began (the lookup window of a reconciliation), the handle the network
-- gave on it (TikTok publish_id, Facebook video id), and, while set, that the last attempt's outcome
-- is unknown and must be looked up before anything is posted again.
ALTER TABLE "deliveries" ADD COLUMN "attempt_started_at" TIMESTAMPTZ(3),
                         ADD COLUMN "attempt_handle" TEXT,
                         ADD COLUMN "reconcile_since" TIMESTAMPTZ(3),
                         ADD COLUMN "reconcile_tries" INTEGER NOT NULL DEFAULT 0;

-- Finished and published targets, counted as each delivery finishes: the last one knows the job is
-- done without re-reading every delivery under the job's lock.
ALTER TABLE "jobs" ADD COLUMN "finished_deliveries" INTEGER NOT NULL DEFAULT 0,
                   ADD COLUMN "published_deliveries" INTEGER NOT NULL DEFAULT 0;

UPDATE "jobs" j SET "finished_deliveries" = c.finished, "published_deliveries" = c.published
  FROM (SELECT "job_id",
               count(*) FILTER (WHERE "status" IN ('published', 'failed'))::int AS finished,
               count(*) FILTER (WHERE "status" = 'published')::int AS published
          FROM "deliveries" GROUP BY "job_id") c
 WHERE c."job_id" = j."id";

-- The sweeper's two scans: expired leases, and pending deliveries left without a command.
CREATE INDEX "deliveries_lease_idx" ON "deliveries"("lease_until") WHERE "status" = 'in_flight';
CREATE INDEX "deliveries_pending_idx" ON "deliveries"("updated_at") WHERE "status" = 'pending';
