-- The table of worp-load's anchor (pgbench's durable single-row insert, `anchor.sql`).
DROP TABLE IF EXISTS anchor;
CREATE TABLE anchor (id bigserial PRIMARY KEY, game_id uuid NOT NULL, seq bigint NOT NULL,
    payload jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now());
