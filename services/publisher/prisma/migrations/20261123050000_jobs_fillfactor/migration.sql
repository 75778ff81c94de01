-- Room on every page of jobs for the updates that count a job's finished deliveries (one per
-- grouped outcome, several per job) to stay on the same page. Such an update changes no indexed
-- column, so with room it is HOT (heap-only): no new entry in any of the table's six indexes, two of
-- them GIN (the text search and the networks). At the default fill factor of 100 a page of freshly
-- accepted jobs is full: every one of those updates moved its row to another page and added an
-- entry to every index (docs/performance.md, "Soak on the final code"). Pages written
-- from now on keep 30% free. Existing pages keep theirs until rewritten (VACUUM FULL or pg_repack).
ALTER TABLE "jobs" SET (fillfactor = 70);
