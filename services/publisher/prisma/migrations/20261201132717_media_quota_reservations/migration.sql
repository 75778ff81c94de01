-- CreateTable
CREATE TABLE "media_quota_reservations" (
    "id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "media_quota_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "media_quota_reservations_org_id_expires_at_idx" ON "media_quota_reservations"("org_id", "expires_at");
