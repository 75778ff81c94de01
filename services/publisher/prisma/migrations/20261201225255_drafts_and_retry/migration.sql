-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "draft" JSONB,
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "prior_attempts" INTEGER NOT NULL DEFAULT 0;
