-- A waiting delivery that a publisher took off the wait to run in its own process, instead of a
-- command through the outbox and the broker (src/data/org-waiting.ts). It leaves the index of
-- waiting deliveries, so no wake or probe reads past it, but keeps org_wait_since, so it keeps its
-- place in line if its claim finds the organization busy again (the claim clears the mark). Past the
-- mark (its publisher stopped before the claim) the sweep puts it back in line. The second index
-- holds only the few marked rows, for that sweep.
ALTER TABLE "deliveries" ADD COLUMN "org_woken_until" TIMESTAMPTZ(3);
DROP INDEX "deliveries_org_waiting_idx";
CREATE INDEX "deliveries_org_waiting_idx" ON "deliveries"("org_id", "org_wait_since") WHERE "org_wait_since" IS NOT NULL AND "org_woken_until" IS NULL AND "status" = 'pending';
CREATE INDEX "deliveries_org_woken_idx" ON "deliveries"("org_woken_until") WHERE "org_woken_until" IS NOT NULL;
