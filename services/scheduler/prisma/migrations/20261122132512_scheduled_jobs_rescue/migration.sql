-- AlterTable
ALTER TABLE "scheduled_jobs" ADD COLUMN     "redispatches" INTEGER NOT NULL DEFAULT 0;

-- Hand-edited: the rescue pass only ever scans dispatches still waiting for their confirmation.
CREATE INDEX "scheduled_jobs_fired_idx" ON "scheduled_jobs"("fired_at") WHERE "status" = 'fired';

-- Hand-edited: rows fired before confirmations existed have none coming. Those fired over an hour ago
-- are taken as handed over (else each would be re-sent and end as "unconfirmed"), recent ones get
-- the rescue pass like any new dispatch.
UPDATE "scheduled_jobs" SET "status" = 'handed_over' WHERE "status" = 'fired' AND "fired_at" < now() - interval '1 hour';
