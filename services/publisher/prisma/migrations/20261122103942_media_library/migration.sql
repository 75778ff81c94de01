-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "media_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "media" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "duration_ms" INTEGER,
    "sha256" TEXT NOT NULL,
    "source_url" TEXT,
    "rendition_size_bytes" BIGINT,
    "compatibility" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "media_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "media_org_id_created_at_id_idx" ON "media"("org_id", "created_at" DESC, "id" DESC);
