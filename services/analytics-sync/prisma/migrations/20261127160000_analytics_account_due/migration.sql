-- (No semicolon in these comments: the migration runner splits the script at each one.)
-- The background claim finds due readings account by account. It took due rows in next_sync_at order
-- and passed over those of paused accounts one by one, so its cost grew with the backlog a rate limit
-- held back: at the end of the 100-minute soak all ten accounts were paused with 359,830 rows due, and
-- one claim read 892,000 buffers in 4.0 s to return no row (docs/performance.md, "The claim skips a
-- paused account, not its rows"). Now each account has the earliest time any of its readings can be
-- due, the claim takes due accounts that are not paused in that order, and within each its due rows
-- from the (account_id, next_sync_at) index: a paused account costs one entry, whatever its backlog.
CREATE TABLE "analytics_account_due" (
    "account_id" TEXT NOT NULL,
    "next_due_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "analytics_account_due_pkey" PRIMARY KEY ("account_id")
);

INSERT INTO "analytics_account_due" ("account_id", "next_due_at")
SELECT "account_id", min("next_sync_at") FROM "analytics_readings" GROUP BY "account_id";

CREATE INDEX "analytics_account_due_next_due_at_idx" ON "analytics_account_due"("next_due_at");

CREATE INDEX "analytics_readings_account_id_next_sync_at_idx" ON "analytics_readings"("account_id", "next_sync_at");

-- Nothing reads due rows across accounts any more.
DROP INDEX "analytics_readings_next_sync_at_idx";
