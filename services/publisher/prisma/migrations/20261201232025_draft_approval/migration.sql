-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "approval_comment" TEXT,
ADD COLUMN     "approval_decided_at" TIMESTAMPTZ(3),
ADD COLUMN     "approval_decided_by" TEXT,
ADD COLUMN     "approval_decided_via" TEXT,
ADD COLUMN     "approval_requested_at" TIMESTAMPTZ(3),
ADD COLUMN     "approval_status" TEXT;
