-- First comments: the text asked for on the job, and the outcome of each delivery comment, kept apart from its post outcome.
-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "first_comment" TEXT;

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "first_comment_error_code" TEXT,
ADD COLUMN     "first_comment_error_message" TEXT,
ADD COLUMN     "first_comment_id" TEXT,
ADD COLUMN     "first_comment_status" TEXT;
