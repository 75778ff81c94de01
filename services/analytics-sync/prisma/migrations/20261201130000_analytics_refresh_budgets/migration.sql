-- (No semicolon in these comments: the migration runner splits the script at each one.)
-- When a network read of the row last began, on any replica: a read-time refresh claims a row only
-- when this is older than the minimum refresh age, so concurrent reads (here or on another replica)
-- and repeated refresh=true share one network call.
ALTER TABLE "analytics_readings" ADD COLUMN "refresh_claimed_at" TIMESTAMPTZ(3);

-- Network reads started by list reads, per organization, in the current minute.
CREATE TABLE "analytics_org_reads" (
    "org_id" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "used" INTEGER NOT NULL,
    "granted" INTEGER NOT NULL,

    CONSTRAINT "analytics_org_reads_pkey" PRIMARY KEY ("org_id")
);
