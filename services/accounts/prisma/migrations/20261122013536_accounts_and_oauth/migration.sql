-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "platform_account_id" TEXT NOT NULL,
    "handle" TEXT,
    "display_name" TEXT,
    "connection_type" TEXT NOT NULL,
    "health" TEXT NOT NULL,
    "extras" JSONB NOT NULL DEFAULT '{}',
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "access_token" TEXT NOT NULL,
    "refresh_token" TEXT,
    "token_expires_at" TIMESTAMPTZ(3),
    "refresh_expires_at" TIMESTAMPTZ(3),
    "oauth_app_id" UUID,
    "last_refreshed_at" TIMESTAMPTZ(3),
    "last_refresh_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_apps" (
    "id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_apps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_flows" (
    "id" UUID NOT NULL,
    "org_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "oauth_app_id" UUID,
    "code_verifier" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_flows_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "accounts_org_id_created_at_id_idx" ON "accounts"("org_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "accounts_token_expires_at_idx" ON "accounts"("token_expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_org_id_provider_platform_account_id_key" ON "accounts"("org_id", "provider", "platform_account_id");

-- CreateIndex
CREATE INDEX "oauth_apps_org_id_provider_created_at_idx" ON "oauth_apps"("org_id", "provider", "created_at");

-- CreateIndex
CREATE INDEX "oauth_flows_expires_at_idx" ON "oauth_flows"("expires_at");
