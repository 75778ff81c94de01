-- Event-carried account state (account.state_changed.v1, libs/contracts accounts.messages.ts): every
-- change of the facts other services replicate (organization, network, handle, health, the rule
-- extras) writes one outbox row in the changing transaction, whichever code path made it (connect,
-- reconnect, refresh outcome, the bulk `expiring` pass, delete). A trigger rather than calls in each
-- path, so a new write path cannot forget it. Tokens and other extras never travel.
--
-- The function bodies are E'' strings with every semicolon written \073: Prisma's driver adapter runs
-- a migration by splitting it at each semicolon, which would cut a $$ body apart. The bodies as
-- written, readable: services/accounts/prisma/account-state-events.md

-- Grows with every change of an account: taken while the changing transaction holds the row's lock,
-- so the versions of one account follow its commits and consumers keep the highest.
CREATE SEQUENCE "account_state_version";

-- The extras the content rules read: the keys of ruleExtrasOf (libs/providers rules/rule-extras.ts),
-- string values only, as accounts.lookup gives them (services/accounts/test/account-state-events
-- checks the two lists agree). The relay wakes on the NOTIFY right after commit, as with enqueueOutbox.
CREATE FUNCTION account_rule_extras(extras jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS E'
  SELECT COALESCE(jsonb_object_agg(e.key, e.value #>> ''{}''), ''{}''::jsonb)
  FROM jsonb_each(COALESCE(extras, ''{}''::jsonb)) AS e
  WHERE jsonb_typeof(e.value) = ''string''
    AND e.key IN (''subscription_type'', ''text_limit'', ''tt_privacy_level_options'', ''tt_comment_disabled'', ''tt_duet_disabled'',
                  ''tt_stitch_disabled'', ''tt_max_video_post_duration_sec'')
';

CREATE FUNCTION account_state_changed() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  account accounts\073
  id uuid := gen_random_uuid()\073
BEGIN
  IF TG_OP = ''UPDATE''
     AND NEW.org_id IS NOT DISTINCT FROM OLD.org_id AND NEW.provider IS NOT DISTINCT FROM OLD.provider
     AND NEW.handle IS NOT DISTINCT FROM OLD.handle AND NEW.health IS NOT DISTINCT FROM OLD.health
     AND account_rule_extras(NEW.extras) = account_rule_extras(OLD.extras) THEN
    RETURN NULL\073
  END IF\073
  IF TG_OP = ''DELETE'' THEN account := OLD\073 ELSE account := NEW\073 END IF\073
  INSERT INTO outbox_messages (id, type, envelope) VALUES (id, ''account.state_changed.v1'', jsonb_build_object(
    ''message_id'', id,
    ''type'', ''account.state_changed.v1'',
    ''occurred_at'', to_char(clock_timestamp() AT TIME ZONE ''UTC'', ''YYYY-MM-DD"T"HH24:MI:SS.MS"Z"''),
    ''request_id'', NULL,
    ''org_id'', account.org_id,
    ''payload'', jsonb_build_object(
      ''account_id'', account.id,
      ''provider'', account.provider,
      ''handle'', account.handle,
      ''health'', account.health,
      ''rule_extras'', account_rule_extras(account.extras),
      ''deleted'', TG_OP = ''DELETE'',
      ''version'', nextval(''account_state_version''))))\073
  PERFORM pg_notify(''outbox_messages'', '''')\073
  RETURN NULL\073
END
';

CREATE TRIGGER "accounts_state_changed" AFTER INSERT OR UPDATE OR DELETE ON "accounts"
  FOR EACH ROW EXECUTE FUNCTION account_state_changed();
