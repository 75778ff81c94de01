-- CreateTable
CREATE TABLE "account_replicas" (
    "account_id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "handle" TEXT,
    "health" TEXT NOT NULL,
    "rule_extras" JSONB NOT NULL DEFAULT '{}',
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "version" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_replicas_pkey" PRIMARY KEY ("account_id")
);
