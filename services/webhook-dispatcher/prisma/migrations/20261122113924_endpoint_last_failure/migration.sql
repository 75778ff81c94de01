-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "last_failure_at" TIMESTAMPTZ(3);
