-- An organization's live delivery leases, counted for the one-statement delivery claim
-- (src/data/delivery-claim.ts). The claim takes the organization's advisory lock and then calls
-- this function in the same statement. A plain subquery would read with the statement's snapshot,
-- taken before the lock was granted, and miss a claim its previous holder committed meanwhile.
-- A VOLATILE function runs each of its queries with a fresh snapshot, so it sees that claim.
-- The body is a single statement in single quotes, with no semicolon anywhere in this file but
-- at the end: migrate deploy (through the pg driver adapter) splits a script at every semicolon,
-- so a dollar-quoted plpgsql body cannot be applied.
CREATE FUNCTION delivery_org_leases(org text) RETURNS integer
  LANGUAGE sql VOLATILE
  AS 'SELECT count(*)::int FROM deliveries WHERE org_id = $1 AND status = ''in_flight'' AND lease_until > now()';
