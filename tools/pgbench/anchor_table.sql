-- The table of worp-load's anchor (pgbench's durable single-row insert, `anchor.sql`);
-- worp-load, run.sh (through setup.sql) and tools/latency/split.sh all make it from here.
DROP TABLE IF EXISTS anchor;
CREATE TABLE anchor (id bigserial PRIMARY KEY, game_id uuid NOT NULL, seq bigint NOT NULL,
    payload jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now());
