-- delivery_org_leases (migration 20261123030000) counts an organization's live leases on every
-- claim and every wake. No index answered it whole, so its plan, made once per session and kept
-- until the next ANALYZE, depended on the statistics of the moment: deliveries_org_id_status_idx
-- with the lease as a filter, deliveries_lease_idx with the organization as a filter (every live
-- lease of every organization), or, made on an empty table, deliveries_org_id_finished_at_idx on
-- org_id alone (every delivery the organization ever had, docs/performance.md). This index holds
-- in-flight rows only, by organization and lease, so the count is one short range of it whatever
-- the statistics say.
CREATE INDEX "deliveries_org_leases_idx" ON "deliveries"("org_id", "lease_until") WHERE "status" = 'in_flight';

-- deliveries_org_id_status_idx served nothing else (the dashboard's counts read
-- deliveries_org_id_finished_at_idx) and took a new entry at every non-HOT update of a delivery,
-- four a delivery, for every version of every row since the last vacuum, which a bitmap scan reads
-- whole (docs/performance.md, "Soak: the wake's plan").
DROP INDEX "deliveries_org_id_status_idx";
