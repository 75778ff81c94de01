-- AlterTable
ALTER TABLE "outbox_messages" ADD COLUMN     "parked_at" TIMESTAMPTZ(3);

-- Claiming order (libs/db outbox-relay.ts): never-tried rows first, so rows the broker keeps refusing
-- cannot starve fresh ones. Partial: published and parked rows are not in it.
CREATE INDEX "outbox_messages_claim_idx" ON "outbox_messages"("attempts", "created_at") WHERE "published_at" IS NULL AND "parked_at" IS NULL;
