-- AlterTable
ALTER TABLE "media" ADD COLUMN "page_count" INTEGER;
