-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "recurrence_id" UUID;

-- CreateTable
CREATE TABLE "recurrences" (
    "id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "rule" JSONB NOT NULL,
    "last_occurrence_at" TIMESTAMPTZ(3),
    "occurrences_created" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "cancelled_at" TIMESTAMPTZ(3),

    CONSTRAINT "recurrences_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "recurrences_org_id_idx" ON "recurrences"("org_id");

-- CreateIndex
CREATE INDEX "jobs_recurrence_id_idx" ON "jobs"("recurrence_id");

-- The extending loop reads only the recurrences still running.
CREATE INDEX "recurrences_active_idx" ON "recurrences"("created_at") WHERE "cancelled_at" IS NULL;
