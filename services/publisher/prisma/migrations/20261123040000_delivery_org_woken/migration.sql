-- A waiting delivery that a publisher took off the wait to run in its own process, instead of a
-- command through the outbox and the broker (src/data/org-waiting.ts): until then the other wakes
-- pass it over, and past it (that publisher stopped before its claim) the next wake takes it again. It
-- stays marked waiting until its claim, so it keeps its place in line. Not indexed, so a wake that
-- sets it can be a HOT update.
ALTER TABLE "deliveries" ADD COLUMN "org_woken_until" TIMESTAMPTZ(3);
