-- The role the server runs as. The triggers of the event log do not bind a superuser
-- (who can disable them) nor the owner of `events`, so the server must be neither: it
-- runs as a login role that is a member of `worp_server` (README, "PostgreSQL"). This
-- role may read and append the log and write the read models, the webhook outbox and
-- the idempotency answers; it may not UPDATE, DELETE or TRUNCATE events, own a table,
-- create triggers or run migrations (those stay with the owner).
--
-- Roles belong to the cluster, not to one database: the role may exist already, or
-- another database of the cluster may be creating it at this very moment.
DO $$
BEGIN
    CREATE ROLE worp_server NOLOGIN;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;

DO $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO worp_server', current_schema());
END
$$;

-- What is written once: the log, players, dice secrets.
GRANT SELECT, INSERT ON events, players, game_secrets TO worp_server;
-- Derived or operational rows: the read models (which `worp rebuild` remakes), webhooks,
-- their outbox, and the kept answers (which expire).
GRANT SELECT, INSERT, UPDATE, DELETE
    ON games, game_seats, webhooks, webhook_deliveries, idempotency TO worp_server;
-- At start-up the server only checks that every migration is applied.
GRANT SELECT ON _sqlx_migrations TO worp_server;
-- A later migration that adds a table grants what the server needs on it here too.
