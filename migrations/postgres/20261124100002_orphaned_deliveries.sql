-- Deliveries whose webhook was deleted before deleting a webhook took its deliveries with
-- it: nobody can read them and nothing sends them.
DELETE FROM webhook_deliveries WHERE webhook_id NOT IN (SELECT id FROM webhooks);
