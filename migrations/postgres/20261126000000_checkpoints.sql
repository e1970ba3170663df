-- The newest stored checkpoint of each game (api/src/checkpoints/stored.rs): the game's
-- table as folding its log gave it at `version`, so that a cold load reads only the
-- events after it. Derived, like the read models: the log never depends on it, a row
-- that does not fit the log is ignored, and any row may be deleted at any time.
CREATE TABLE checkpoints (
    game_id       UUID PRIMARY KEY,
    version       BIGINT NOT NULL CHECK (version >= 1),
    -- The engine's rules and the body's layout it was written with; another is ignored.
    rules_version INTEGER NOT NULL,
    format        INTEGER NOT NULL,
    body          TEXT NOT NULL,
    written_at    TIMESTAMPTZ NOT NULL
);

DO $$
BEGIN
    ALTER TABLE checkpoints ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not supported by this server: checkpoints stay compressed by pglz';
END $$;

GRANT SELECT, INSERT, UPDATE, DELETE ON checkpoints TO worp_server;
