-- CreateTable
CREATE TABLE "plan_limits" (
    "org_id" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "posts_per_month" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plan_limits_pkey" PRIMARY KEY ("org_id")
);

-- CreateTable
CREATE TABLE "post_usage" (
    "org_id" TEXT NOT NULL,
    "period" DATE NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "post_usage_pkey" PRIMARY KEY ("org_id","period")
);

-- Counts the jobs accepted before this migration, as GET /v1/stats counts them (canceled excluded).
INSERT INTO "post_usage" ("org_id", "period", "used")
SELECT "org_id", (date_trunc('month', "created_at" AT TIME ZONE 'UTC'))::date, count(*)::int
FROM "jobs" WHERE "status" <> 'canceled'
GROUP BY 1, 2;
