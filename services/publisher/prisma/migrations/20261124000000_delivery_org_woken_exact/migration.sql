-- The wake counts an organization's woken deliveries on every call (src/data/org-waiting.ts). The
-- index it had held only org_woken_until, so the planner weighed it against the organization's
-- pending rows, and in the soak it switched, for a minute or two at a time, to a bitmap AND of that
-- index with deliveries_org_id_status_idx at (org_id, 'pending'), where every version of a pending
-- delivery since the last vacuum has an entry (its wait, wake and claim are not HOT updates) and a
-- bitmap scan never marks the dead ones: 1.1-3.6 ms a wake instead of 0.17, a third less throughput
-- (docs/performance.md, "Soak: the wake's plan"). This index answers the count whole (its predicate
-- holds the status, its columns the organization and the mark), so no other index can narrow it,
-- and the count reads it in its order up to a limit, so a scan of it is the cheapest plan whatever
-- the statistics say. Marks left on rows no longer pending are read by nobody: every reader of a
-- mark asks for pending rows, and the sweep clears the expired marks of pending rows only.
DROP INDEX "deliveries_org_woken_idx";
CREATE INDEX "deliveries_org_woken_idx" ON "deliveries"("org_id", "org_woken_until") WHERE "org_woken_until" IS NOT NULL AND "status" = 'pending';
