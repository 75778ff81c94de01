-- The publisher's rescue of scheduled jobs whose dispatch never came (docs/reliability.md): a scan of
-- overdue `scheduled` jobs by due time.
CREATE INDEX "jobs_overdue_scheduled_idx" ON "jobs"("scheduled_at") WHERE "status" = 'scheduled'
