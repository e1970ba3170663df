-- Every stored checkpoint of a game is kept, one each time it passes a multiple of 256
-- events (api/src/checkpoints/stored.rs), not only the newest: `state?at=N` of a game
-- this process has not folded starts at the newest one at or before N. Derived, like
-- the read models: any row may be deleted at any time.
CREATE TABLE checkpoints_by_version (
    game_id       BLOB NOT NULL,
    version       INTEGER NOT NULL CHECK (version >= 1),
    -- The engine's rules and the body's layout it was written with; another is ignored.
    rules_version INTEGER NOT NULL,
    format        INTEGER NOT NULL,
    body          TEXT NOT NULL,
    written_at    TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);
INSERT INTO checkpoints_by_version
    SELECT game_id, version, rules_version, format, body, written_at FROM checkpoints;
DROP TABLE checkpoints;
ALTER TABLE checkpoints_by_version RENAME TO checkpoints;
