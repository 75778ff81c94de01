-- Each dispatcher process's share of an organization's in-flight attempts (WEBHOOK_ORG_CONCURRENCY
-- across all processes), leased: a process that dies gives its share back when the lease ends.
CREATE TABLE "webhook_org_shares" (
    "org_id" TEXT NOT NULL,
    "holder" UUID NOT NULL,
    "slots" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_org_shares_pkey" PRIMARY KEY ("org_id","holder")
);
CREATE INDEX "webhook_org_shares_holder_idx" ON "webhook_org_shares"("holder");
