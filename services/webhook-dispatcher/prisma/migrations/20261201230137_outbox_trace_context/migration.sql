-- AlterTable
ALTER TABLE "outbox_messages" ADD COLUMN     "trace_context" JSONB;
