-- The relay deletes a message once the broker confirmed it (issue 14: no decay with use). Published
-- rows kept for 72 h grew the table without bound and left dead entries at the head of the claim
-- index that every claim walked. The claim index now orders by due time, so delayed messages are
-- passed over inside the index. The indexes on available_at and published_at had no reader left.
DELETE FROM "outbox_messages" WHERE "published_at" IS NOT NULL;
DROP INDEX IF EXISTS "outbox_messages_pending_idx";
DROP INDEX IF EXISTS "outbox_messages_published_at_idx";
DROP INDEX IF EXISTS "outbox_messages_claim_idx";
CREATE INDEX "outbox_messages_claim_idx" ON "outbox_messages"("attempts", "available_at") WHERE "published_at" IS NULL AND "parked_at" IS NULL;
