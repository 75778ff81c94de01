-- The retention pass deletes settled deliveries by age across every endpoint (WEBHOOK_DELIVERY_RETENTION_DAYS).
CREATE INDEX "webhook_deliveries_created_at_idx" ON "webhook_deliveries"("created_at");
