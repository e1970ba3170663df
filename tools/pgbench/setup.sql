-- Scratch copies of `games` and `events` (their indexes and fill factor as the
-- migrations leave them), one per type the summary and the payloads are stored as:
-- g_jsonb/e_jsonb, g_json/e_json, g_text/e_text. Run on a database a load has filled
-- (its first `games` summary is copied into 100,000 rows); `teardown.sql` drops them.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['jsonb', 'json', 'text'] LOOP
        EXECUTE format('DROP TABLE IF EXISTS g_%1$s, e_%1$s', t);
        EXECUTE format('CREATE TABLE g_%1$s (id uuid PRIMARY KEY, variant text NOT NULL,
            status text NOT NULL, version bigint NOT NULL, to_move_seat int,
            to_move_player uuid, summary %1$s NOT NULL, deadline timestamptz,
            created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
            listed_second timestamptz) WITH (fillfactor = 70)', t);
        EXECUTE format('CREATE INDEX ON g_%1$s (listed_second DESC)', t);
        EXECUTE format('CREATE INDEX ON g_%1$s (created_at DESC, id) WHERE status = ''waiting''', t);
        EXECUTE format('INSERT INTO g_%1$s SELECT md5(i::text)::uuid, ''backgammon'', ''active'', 1, 0,
            NULL, (SELECT summary FROM games LIMIT 1)::text::%1$s, NULL, now(), now(), now()
            FROM generate_series(1, 100000) i', t);
        EXECUTE format('CREATE TABLE e_%1$s (position bigint GENERATED ALWAYS AS IDENTITY,
            game_id uuid NOT NULL, seq bigint NOT NULL, kind text NOT NULL,
            payload %1$s NOT NULL, rules_version int NOT NULL,
            recorded_at timestamptz NOT NULL, hash text NOT NULL, UNIQUE (game_id, seq))', t);
        EXECUTE format('CREATE INDEX ON e_%1$s (position) WHERE kind = ''game_finished''', t);
        EXECUTE format('CREATE INDEX ON e_%1$s (game_id, seq) WHERE kind = ''message_posted''', t);
    END LOOP;
END $$;
\ir anchor_table.sql
VACUUM ANALYZE g_jsonb, e_jsonb, g_json, e_json, g_text, e_text, anchor;
