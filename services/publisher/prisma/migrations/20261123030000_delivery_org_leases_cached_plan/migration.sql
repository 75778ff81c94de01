-- delivery_org_leases in PL/pgSQL. A SQL function's query is planned again on every call: 0.14 ms
-- of PostgreSQL's CPU per delivery claim, more than running it (docs/performance.md, section
-- "Prepared statements"). PL/pgSQL keeps its plan for the session. Still VOLATILE, so its query
-- still reads with a fresh snapshot, taken after the claim's advisory lock was granted (migration
-- 20261123010000). The body's one semicolon is written \073 in an escape string: migrate deploy
-- splits a script at every semicolon it sees, comments included, and a PL/pgSQL statement needs one.
CREATE OR REPLACE FUNCTION delivery_org_leases(org text) RETURNS integer
  LANGUAGE plpgsql VOLATILE
  AS E'BEGIN RETURN (SELECT count(*)::int FROM deliveries WHERE org_id = org AND status = ''in_flight'' AND lease_until > now())\073 END';
