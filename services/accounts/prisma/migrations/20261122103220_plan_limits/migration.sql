-- CreateTable
CREATE TABLE "plan_limits" (
    "org_id" TEXT NOT NULL,
    "plan" TEXT NOT NULL,
    "connected_accounts" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "plan_limits_pkey" PRIMARY KEY ("org_id")
);
