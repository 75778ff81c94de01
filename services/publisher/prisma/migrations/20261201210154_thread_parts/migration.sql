-- Threads: the parts asked for on the job, and the parts of each delivery that exist on the network.
-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "thread" JSONB;

-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "thread_parts" JSONB NOT NULL DEFAULT '[]';
