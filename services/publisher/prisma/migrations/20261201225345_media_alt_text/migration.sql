-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "media_alt_text" TEXT[] DEFAULT ARRAY[]::TEXT[];
