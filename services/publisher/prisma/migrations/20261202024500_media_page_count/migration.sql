-- A document's (PDF's) pages, counted from its bytes; null for images and videos.
ALTER TABLE "media" ADD COLUMN "page_count" INTEGER;
