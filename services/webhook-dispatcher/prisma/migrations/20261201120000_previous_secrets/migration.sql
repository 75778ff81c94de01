-- Every earlier signing secret still inside its overlap, newest first, each with its own end: a second
-- rotation within the overlap no longer ends the first one's at once.
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secrets" JSONB NOT NULL DEFAULT '[]';
UPDATE "webhook_endpoints"
   SET "previous_secrets" = jsonb_build_array(jsonb_build_object('cipher', "previous_secret_cipher", 'expires_at', "previous_secret_expires_at"))
 WHERE "previous_secret_cipher" IS NOT NULL AND "previous_secret_expires_at" > now();
-- The single-secret columns stay for dispatchers of the previous release during a rolling update: this
-- release writes the newest earlier secret into them as well and reads only `previous_secrets`. The
-- release after this one drops them.
