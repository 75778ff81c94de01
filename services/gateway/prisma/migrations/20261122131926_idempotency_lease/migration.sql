-- AlterTable
ALTER TABLE "idempotency_records" ADD COLUMN     "locked_until" TIMESTAMPTZ(3);

-- Records left without a response by an earlier gateway (in flight, or died mid-request) start free:
-- a retry of the same request takes them over with the same operation id, so no second job.
