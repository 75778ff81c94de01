-- CreateTable
CREATE TABLE "queues" (
    "org_id" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "slots" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "queues_pkey" PRIMARY KEY ("org_id")
);

-- CreateTable
CREATE TABLE "queue_slots" (
    "account_id" TEXT NOT NULL,
    "slot_at" TIMESTAMPTZ(3) NOT NULL,
    "org_id" TEXT NOT NULL,
    "job_id" UUID NOT NULL,
    "claimed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "queue_slots_pkey" PRIMARY KEY ("account_id","slot_at")
);

-- CreateIndex
CREATE INDEX "queue_slots_org_id_slot_at_idx" ON "queue_slots"("org_id", "slot_at");

-- CreateIndex
CREATE INDEX "queue_slots_job_id_idx" ON "queue_slots"("job_id");
