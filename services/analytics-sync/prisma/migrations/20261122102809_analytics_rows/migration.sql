-- CreateTable
CREATE TABLE "analytics_rows" (
    "id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,
    "post_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "platform_post_id" TEXT NOT NULL,
    "platform_post_url" TEXT,
    "text" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "published_at" TIMESTAMPTZ(3),
    "metrics" JSONB NOT NULL DEFAULT '{}',
    "warnings" JSONB NOT NULL DEFAULT '[]',
    "sync_status" TEXT NOT NULL DEFAULT 'pending',
    "error_message" TEXT,
    "last_updated_at" TIMESTAMPTZ(3),
    "stale_after" TIMESTAMPTZ(3),
    "next_sync_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "analytics_rows_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "account_pauses" (
    "account_id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "paused_until" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL,

    CONSTRAINT "account_pauses_pkey" PRIMARY KEY ("account_id")
);

-- CreateTable
CREATE TABLE "analytics_org_counters" (
    "org_id" TEXT NOT NULL,
    "rows" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_org_counters_pkey" PRIMARY KEY ("org_id")
);

-- CreateIndex
CREATE INDEX "analytics_rows_org_id_platform_seq_idx" ON "analytics_rows"("org_id", "platform", "seq" DESC);

-- CreateIndex
CREATE INDEX "analytics_rows_org_id_account_id_seq_idx" ON "analytics_rows"("org_id", "account_id", "seq" DESC);

-- CreateIndex
CREATE INDEX "analytics_rows_org_id_created_at_idx" ON "analytics_rows"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "analytics_rows_org_id_platform_post_id_idx" ON "analytics_rows"("org_id", "platform_post_id");

-- CreateIndex
CREATE INDEX "analytics_rows_next_sync_at_idx" ON "analytics_rows"("next_sync_at");

-- CreateIndex
CREATE UNIQUE INDEX "analytics_rows_org_id_post_id_account_id_key" ON "analytics_rows"("org_id", "post_id", "account_id");

-- CreateIndex
CREATE UNIQUE INDEX "analytics_rows_org_id_seq_key" ON "analytics_rows"("org_id", "seq" DESC);
