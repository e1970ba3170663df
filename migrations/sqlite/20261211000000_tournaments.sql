-- Tournaments (docs/tournaments.md). A tournament is its log, like a game: one row per
-- event, hash-chained, never changed. `tournaments` is its read model (rebuilt by
-- `worp rebuild`), `tournament_games` finds the tournament of a game that finished.
CREATE TABLE tournament_events (
    tournament_id BLOB NOT NULL,
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    kind          TEXT NOT NULL,
    -- The payload's canonical JSON text, which the hash covers.
    payload       TEXT NOT NULL,
    recorded_at   TEXT NOT NULL,
    -- SHA-256(previous event's hash || this event's canonical bytes), hex.
    hash          TEXT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
CREATE TRIGGER tournament_events_no_update BEFORE UPDATE ON tournament_events
BEGIN
    SELECT RAISE(ABORT, 'events are immutable: UPDATE refused');
END;
CREATE TRIGGER tournament_events_no_delete BEFORE DELETE ON tournament_events
BEGIN
    SELECT RAISE(ABORT, 'events are immutable: DELETE refused');
END;

CREATE TABLE tournaments (
    id          BLOB PRIMARY KEY,
    name        TEXT NOT NULL,
    variant     TEXT NOT NULL,
    -- registering, running or finished
    status      TEXT NOT NULL,
    created_by  BLOB NOT NULL,
    -- The last sequence number of its log.
    version     INTEGER NOT NULL,
    -- The tournament's view (settings, players, rounds, standings) as JSON text.
    summary     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX tournaments_by_status ON tournaments (status, created_at DESC, id);

CREATE TABLE tournament_games (
    game_id        BLOB PRIMARY KEY,
    tournament_id  BLOB NOT NULL,
    round          INTEGER NOT NULL,
    table_number   INTEGER NOT NULL
);
CREATE INDEX tournament_games_of ON tournament_games (tournament_id);
