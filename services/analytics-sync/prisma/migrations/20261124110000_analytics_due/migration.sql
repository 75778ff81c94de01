-- When each row is next read moves to a narrow table of its own. In the soak, a background claim of
-- 1,000 rows took 196 ms of PostgreSQL's time and the refresh's save about 0.24 ms a row: each
-- rewrote the whole row, with a new entry in each of its eight indexes, because next_sync_at was one
-- of them (no update of analytics_rows was heap-only). Now a claim and a refresh rewrite a row of
-- analytics_due (two index entries), and the refresh's write of the metrics changes no indexed
-- column of analytics_rows (docs/performance.md, "Analytics' refreshes apart from their rows").
CREATE TABLE "analytics_due" (
    "row_id" UUID NOT NULL,
    "account_id" TEXT NOT NULL,
    "next_sync_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "analytics_due_pkey" PRIMARY KEY ("row_id")
);

INSERT INTO "analytics_due" ("row_id", "account_id", "next_sync_at") SELECT "id", "account_id", "next_sync_at" FROM "analytics_rows";

CREATE INDEX "analytics_due_next_sync_at_idx" ON "analytics_due"("next_sync_at");

ALTER TABLE "analytics_due" ADD CONSTRAINT "analytics_due_row_id_fkey" FOREIGN KEY ("row_id") REFERENCES "analytics_rows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

DROP INDEX "analytics_rows_next_sync_at_idx";

ALTER TABLE "analytics_rows" DROP COLUMN "next_sync_at";

-- A heap-only update needs room on the row's own page: a quarter of each new page is left for the
-- next version of its rows (read every 15 minutes in their first day).
ALTER TABLE "analytics_rows" SET (fillfactor = 75);
