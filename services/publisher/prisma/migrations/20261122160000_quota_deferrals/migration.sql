-- Deferrals for a network's quota window (X usage cap, LinkedIn's daily limit, TikTok spam risk,
-- Instagram's publishing limit): counted apart from DELIVERY_MAX_ATTEMPTS, bounded by
-- DELIVERY_MAX_QUOTA_DEFERRALS.
ALTER TABLE "deliveries" ADD COLUMN "quota_deferrals" INTEGER NOT NULL DEFAULT 0
