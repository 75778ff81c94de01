-- A delivery whose organization was at DELIVERY_ORG_CONCURRENCY when it was claimed waits here,
-- marked with when it began to wait, instead of being re-enqueued every few seconds: the delivery
-- that frees a slot wakes the oldest (src/data/org-waiting.ts).
ALTER TABLE "deliveries" ADD COLUMN "org_wait_since" TIMESTAMPTZ(3);

CREATE INDEX "deliveries_org_waiting_idx" ON "deliveries"("org_id", "org_wait_since") WHERE "org_wait_since" IS NOT NULL AND "status" = 'pending';
