-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "refresh_lease_owner" UUID,
ADD COLUMN     "refresh_lease_until" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "oauth_flows" ADD COLUMN     "browser_nonce_hash" TEXT;
