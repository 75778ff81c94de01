-- CreateTable
CREATE TABLE "scheduled_jobs" (
    "job_id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "run_at" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL,
    "request_id" TEXT,
    "fired_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scheduled_jobs_pkey" PRIMARY KEY ("job_id")
);

-- CreateIndex
CREATE INDEX "scheduled_jobs_run_at_idx" ON "scheduled_jobs"("run_at");

-- Hand-edited: the loop only ever scans rows still waiting.
CREATE INDEX "scheduled_jobs_due_idx" ON "scheduled_jobs"("run_at") WHERE "status" = 'scheduled';
