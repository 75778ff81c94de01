-- (No semicolon in these comments: the migration runner splits the script at each one.)
-- The readings of a row (metrics, warnings, status, freshness) move to the narrow table that already held
-- when it is next read, which becomes analytics_readings, and analytics_rows keeps only what a refresh
-- never changes and is written once. In the soak the first read of a post rewrote rows inserted a minute
-- before: their page had no room for the longer version (the metrics are new), so four updates in
-- five left the page, with a new entry in each of the seven indexes of the row, and the table more than
-- doubled (7 -> 17 MB for 20,000 rows). A claim and a save of 100 rows on a scratch copy of 100,000
-- took 79 us a row that way and 38 us with the readings apart (docs/performance.md, "A refresh
-- rewrites only the readings").
ALTER TABLE "analytics_due" RENAME TO "analytics_readings";
ALTER TABLE "analytics_readings" RENAME CONSTRAINT "analytics_due_pkey" TO "analytics_readings_pkey";
ALTER TABLE "analytics_readings" RENAME CONSTRAINT "analytics_due_row_id_fkey" TO "analytics_readings_row_id_fkey";
ALTER INDEX "analytics_due_next_sync_at_idx" RENAME TO "analytics_readings_next_sync_at_idx";

ALTER TABLE "analytics_readings"
    ADD COLUMN "metrics" JSONB NOT NULL DEFAULT '{}',
    ADD COLUMN "warnings" JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN "sync_status" TEXT NOT NULL DEFAULT 'pending',
    ADD COLUMN "error_message" TEXT,
    ADD COLUMN "last_updated_at" TIMESTAMPTZ(3),
    ADD COLUMN "stale_after" TIMESTAMPTZ(3);

UPDATE "analytics_readings" d
   SET "metrics" = r."metrics", "warnings" = r."warnings", "sync_status" = r."sync_status", "error_message" = r."error_message",
       "last_updated_at" = r."last_updated_at", "stale_after" = r."stale_after"
  FROM "analytics_rows" r
 WHERE r."id" = d."row_id";

ALTER TABLE "analytics_rows"
    DROP COLUMN "metrics",
    DROP COLUMN "warnings",
    DROP COLUMN "sync_status",
    DROP COLUMN "error_message",
    DROP COLUMN "last_updated_at",
    DROP COLUMN "stale_after";

-- Written once now: no room to leave for a next version.
ALTER TABLE "analytics_rows" RESET (fillfactor);
