-- AlterTable
ALTER TABLE "oauth_apps" ADD COLUMN     "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "oauth_flows" ADD COLUMN     "author_type" TEXT;
